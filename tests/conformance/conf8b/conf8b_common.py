# Shared by the conf8b twins: JAX 0.10.2 on the CPU with 8 host devices.
import os
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import jax, jax.numpy as jnp, numpy as np
from jax.sharding import PartitionSpec as PS
A = np.asarray; lax = jax.lax; R = jax.random


def nestj(f, *xs, shape=(4, 2), names=("i", "j")):
    """Nested pmaps over names (sizes shape): a shard_map over that mesh (JAX 0.10's pmap
    does not nest), as tests/difftest/gen.py's pmap2; traceable, for grad."""
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:int(np.prod(shape))]).reshape(shape), names)
    k = len(shape)
    g = lambda *b: jax.tree.map(lambda y: y[(None,) * k], f(*[t[(0,) * k] for t in b]))
    return jax.shard_map(g, mesh=mesh, in_specs=PS(*names), out_specs=PS(*names),
                         check_vma=False)(*xs)


def nest(f, *xs, **kw):
    """nestj's results as NumPy arrays, indexed by NumPy."""
    return jax.tree.map(np.asarray, nestj(f, *xs, **kw))


def T(t):
    """A tuple as spmdrun prints it: (a, b) with each leaf as NumPy prints it."""
    return "(" + ", ".join(T(x) if isinstance(x, tuple) else str(A(x)) for x in t) + ")"
