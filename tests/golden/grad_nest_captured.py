# JAX twin of grad_nest_captured.spmd: each nest of pmaps is a shard_map over its mesh,
# the captured weight replicated (in_specs P()).
import os
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import jax, jax.numpy as jnp, numpy as np
from jax import lax
from jax.sharding import PartitionSpec as PS, NamedSharding, Mesh
def T(t):
    if isinstance(t, tuple): return "(" + ", ".join(T(e) for e in t) + ")"
    return str(np.asarray(t))
def nest(f, xs, w, names):
    n = len(names)
    mesh = Mesh(np.array(jax.devices()[:int(np.prod(xs.shape[:n]))]).reshape(xs.shape[:n]), names)
    xs = jax.device_put(xs, NamedSharding(mesh, PS(*names)))
    g = lambda b, w: f(b[(0,) * n], w).reshape((1,) * n)
    return jax.jit(jax.shard_map(g, mesh=mesh, in_specs=(PS(*names), PS()), out_specs=PS(*names), check_vma=False))(xs, w)
w = jnp.arange(8.0).reshape(4, 2) * 0.1
x8 = jnp.arange(32.0).reshape(8, 2, 2) * 0.15 - 2.0
loss42 = lambda w: jnp.sum(nest(lambda xc, w: jnp.sum(jnp.tanh(xc * w[0]) * w[1]), x8.reshape(4, 2, 2, 2), w, ("r", "c")))
print(T(jax.grad(loss42)(w)))
loss222 = lambda w: jnp.sum(nest(lambda xc, w: lax.pmean(jnp.sum(jnp.sin(xc * w[2] + w[3]) * w[1]), ("a", "c")), x8.reshape(2, 2, 2, 2, 2), w, ("a", "b", "c")))
print(T(jax.grad(loss222)(w)))
xx = jnp.arange(16.0).reshape(2, 2, 2, 2) * 0.3 - 2.0
print(T(jax.grad(lambda w: jnp.sum(nest(lambda xc, w: lax.psum(jnp.sum(lax.all_to_all(xc * w[1], "c", 0, 0)) ** 2.0, "c"), xx, w, ("r", "c"))))(w)))
print(T(jax.value_and_grad(lambda w: jnp.sum(nest(lambda xc, w: jnp.sum(jnp.exp(xc * w[0] - 1.0) * w[3]), x8.reshape(2, 4, 2, 2), w, ("r", "c"))))(w)))
