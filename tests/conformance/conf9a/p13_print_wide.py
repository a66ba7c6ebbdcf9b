import jax, jax.numpy as jnp, numpy as np
A = np.asarray
print(A(jnp.arange(40)))
print(A(jnp.arange(30.0) / 3.0))
print(A(-jnp.arange(25) * 1000003))
print(A(jnp.arange(20).astype(jnp.uint32) * jnp.uint32(300000007)))
print(A(jnp.reshape(jnp.arange(36.0) - 17.5, [2, 18])))
print(A(jnp.arange(30) % 3 == 0))
print(A(jnp.reshape(jnp.arange(60), [3, 20]) * -7))
f = jnp.array([1.0, 2.0, 3.0], jnp.float32)
print(A(f * 1e7), A(f * 1e8), A(jnp.array([1.5, 100.25], jnp.float32) * 1e6))
print(A(jnp.linspace(0.0, 1.0, 11)), A(jnp.linspace(-5.0, 5.0, 4)))
