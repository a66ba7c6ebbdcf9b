import jax, jax.numpy as jnp, numpy as np
A = np.asarray
t = jnp.reshape(jnp.arange(24) - 12, [2, 3, 4])
print(A(t), A(t.astype(jnp.float32) / 4.0))
print(A(jnp.reshape(jnp.arange(16.0), [2, 2, 2, 2])))
print(A(jnp.zeros([2, 0, 3])), A(jnp.zeros([0])), A(jnp.zeros([1, 1, 1])), A(jnp.ones([3, 0], jnp.int32)), A(jnp.zeros([0, 2], bool)))
print(A(jnp.reshape(jnp.arange(1001), [7, 11, 13])))
print(A(jnp.reshape(jnp.arange(2000).astype(jnp.float32) * 0.5, [2, 1000])))
print(A(jnp.arange(1000)), A(jnp.arange(1001.0) * 1e-3))
print(A(jnp.reshape(jnp.arange(3000) % 7 == 0, [30, 100])))
