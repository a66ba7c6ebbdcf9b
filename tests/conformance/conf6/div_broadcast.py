import jax, jax.numpy as jnp, numpy as np
A=np.asarray
print(A(jax.vmap(lambda r, s: r / s)(jnp.arange(12.0).reshape(3, 4), jnp.array([1.0, 2.0, 3.0]))))
print(A(jax.vmap(lambda r, s: r / s + s)(jnp.arange(12.0).reshape(3, 4), jnp.array([1.0, 2.0, 3.0]))))
s = jnp.array([3.0]); print(A(jnp.arange(8.0, 12.0) / s + s), A(jnp.arange(8.0, 12.0) / s))
x = jnp.arange(1.0, 13.0).reshape(3, 4) * 0.7
print(A(x / jnp.sum(x)), A(x / jnp.sum(x, axis=0)), A(x / jnp.sum(x, axis=1, keepdims=True)))
print(A(jnp.exp(x) / jnp.sum(jnp.exp(x), axis=1, keepdims=True)))
print(A(jax.vmap(lambda r: r / jnp.max(r))(x)), A(x / x[::-1]), A(3.0 / x[0]))
