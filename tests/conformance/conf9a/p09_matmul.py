import jax, jax.numpy as jnp, numpy as np
A = np.asarray
a = jnp.reshape(jnp.arange(15.0), [3, 5])
v = jnp.arange(5.0) - 2.0
w = jnp.arange(3.0)
print(A(a @ v), A(w @ a), A(v @ v), A(jnp.dot(w, a)), A(jnp.dot(v, v)))
b = jnp.reshape(jnp.arange(10.0), [5, 2])
print(A(a @ b), (a @ b).shape, A((a @ b)[:, 1]))
bt = jnp.reshape(jnp.arange(24.0), [2, 3, 4])
c = jnp.reshape(jnp.arange(8.0), [4, 2])
print(A(bt @ c), A(bt @ jnp.arange(4.0)), A(jnp.arange(3.0) @ bt))
ia = jnp.reshape(jnp.arange(6), [2, 3])
print(A(ia @ jnp.transpose(ia)), A(ia @ jnp.arange(3)), A(ia.astype(jnp.uint32) @ jnp.array([1, 2, 3], jnp.uint32)))
print(A(ia.astype(jnp.float32) @ jnp.ones([3, 1])), A(jnp.ones([1, 2]) @ ia.astype(jnp.float32)), A(jnp.zeros([2, 0]) @ jnp.zeros([0, 3])))
ba = jnp.reshape(jnp.arange(12.0), [3, 1, 4])
bb = jnp.reshape(jnp.arange(8.0), [1, 4, 2])
print(A(ba @ bb), (ba @ bb).shape)
print(A(jnp.dot(ia, jnp.arange(3))), A(jnp.dot(3.0, w)), A(jnp.array([[1, 2], [3, 4]]) @ jnp.array([5, 6])))
