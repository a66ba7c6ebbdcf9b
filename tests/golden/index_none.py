# JAX twin of index_none.spmd.
import jax, jax.numpy as jnp, numpy as np
def T(t): return str(np.asarray(t))
def P(*a): print(*[T(x) for x in a])
x = jnp.arange(6.0).reshape(2, 3)
print(T(x[:, None]), x[None].shape, x[None, :, None].shape, x[0, None].shape, x[:, 1, None].shape)
print(x[None, None].shape, x[:, :, None].shape, T(x[1, None, 2]), (jnp.arange(3.0)[None, :] - jnp.arange(3.0)[:, None]).shape)
P(jnp.arange(3.0)[:, None] * jnp.arange(4.0)[None, :])
v = jnp.arange(4.0)
P(v[None, ::-1], jax.vmap(lambda r: r[:, None] @ r[None, :])(x)[1])
P(jax.grad(lambda w: jnp.sum(w[:, None] * w[None, :]))(v))
