import jax, jax.numpy as jnp, numpy as np
A = np.asarray
print(A(jnp.reshape(jnp.array([1, -22, 333, -4444, 55555, -666666], jnp.int32), [2, 3])))
print(A(jnp.reshape(jnp.array([0, 4294967295, 7, 100], jnp.uint32), [2, 2])), A(jnp.array([-2147483648, 2147483647], jnp.int32)))
print(A(jnp.reshape(jnp.arange(12) % 2 == 0, [3, 4])), A(jnp.array([True])), A(jnp.zeros([2, 2], bool)))
print(A(jnp.int32(7)), A(jnp.uint32(7)), A(jnp.float32(7)), A(jnp.bool_(7)), A(-jnp.int32(0)), A(jnp.uint32(4294967295)), A(jnp.int32(-2147483648)))
print(A(jnp.sum(jnp.arange(5))), A(jnp.max(jnp.array([1, 2], jnp.uint32))), A(jnp.all(jnp.array([True]))), A(jnp.mean(jnp.arange(4.0))), A(jnp.argmax(jnp.arange(3))))
print(jnp.arange(3).shape, jnp.zeros([]).shape, jnp.zeros([2, 3]).size, len(jnp.arange(7)), (1, 2.5, True))
print(A(jnp.reshape(jnp.array([5, -5, 10, -10, 100, -100, 1000, -1000], jnp.int32), [2, 2, 2])))
print(A(jnp.arange(-3, 3) * 1000000000), A(jnp.arange(0, 100, 7)), A(jnp.arange(10, 0, -3)), A(jnp.arange(2, 2)))
