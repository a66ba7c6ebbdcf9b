# The shared preamble of the JAX twins of the host_* goldens (JAX 0.10.2, CPU, 8 host
# devices): `from host_twin import *` first thing in a twin, run beside this file.
# P prints as the goldens' print does (NumPy's default print options); mesh and sm are
# the 4 x 2 mesh (rows, cols) and a shard_map over it with one spec in and out, x the
# [8, 12] array the shard_map goldens split. sm is jitted, as a pmap is: XLA compiles the
# body whole (contracting `v * 1.5 - 0.5` into an FMA, as spmdrun does), where an eager
# jax.shard_map would run it op by op (host14's README, "shard_map bodies and FMA").
import os
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import jax, jax.numpy as jnp, numpy as np
from jax import random as jr
from jax.sharding import Mesh, PartitionSpec as PS
P = lambda *a: print(*[np.asarray(x) for x in a])
mesh = Mesh(np.array(jax.devices()[:8]).reshape(4, 2), ("rows", "cols"))
sm = lambda f, x, spec: jax.jit(jax.shard_map(f, mesh=mesh, in_specs=spec, out_specs=spec))(x)
x = jr.normal(jr.key(150), (96,)).reshape(8, 12)
