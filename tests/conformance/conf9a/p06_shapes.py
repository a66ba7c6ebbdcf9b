import jax, jax.numpy as jnp, numpy as np
A = np.asarray
x = jnp.reshape(jnp.arange(24), [2, 3, 4])
print(A(jnp.transpose(x)), jnp.transpose(x, [1, 2, 0]).shape)
print(A(jnp.transpose(x, [2, 0, 1])[1]), A(jnp.ravel(jnp.transpose(x, [1, 0, 2]))[:10]))
print(A(jnp.reshape(x, [4, -1])), A(jnp.reshape(x, [-1])), jnp.reshape(x, [3, -1, 2]).shape)
print(A(jnp.concatenate([x, x * 10], axis=1)[1]), A(jnp.concatenate([x[:, :, :1], x[:, :, 3:]], axis=-1)))
print(A(jnp.stack([jnp.arange(3), jnp.arange(3) * 2], axis=1)), jnp.stack([x, x, x], axis=2).shape)
print(A(jnp.stack([jnp.arange(2.0), jnp.ones([2])], axis=-1)), A(jnp.concatenate([jnp.zeros([0]), jnp.arange(2.0)])))
m = jnp.reshape(jnp.arange(6.0), [2, 3])
print(A(jnp.transpose(m) @ m), A(m @ jnp.transpose(m)), A(jnp.transpose(jnp.arange(3))))
print(A(jnp.reshape(m, [3, 2])), A(jnp.reshape(jnp.transpose(m), [6])), len(x), x.size, len(m[0]))
print(A(jnp.concatenate([jnp.array([1, 2]), jnp.array([3])])), A(jnp.stack([1.0, 2.0])), A(jnp.reshape(5, [1, 1])))
