import jax, jax.numpy as jnp, numpy as np
A = np.asarray; a_ = jnp.array
x = jnp.arange(24.0).reshape(2, 3, 4) - 11.0
print(A(jnp.sum(x, axis=(0, 2))), A(jnp.max(x, axis=1, keepdims=True)[1]), A(jnp.min(x, axis=-1)))
print(A(jnp.argmax(x, axis=2)), A(jnp.argmin(x, axis=0)), A(jnp.argmax(x)))
print(A(jnp.prod(jnp.arange(1, 7).reshape(2, 3), axis=1)), A(jnp.all(x > -12.0)), A(jnp.any(x == 0.0, axis=(1, 2))))
z = jnp.zeros(3)
y = a_([1.0, 2.0, 0.0]) / z
print(A(jnp.max(y)), A(jnp.min(y)), A(jnp.argmax(y)), A(jnp.argmin(a_([3.0, -1.0, -1.0]))), A(jnp.sum(y[:2])))
w = a_([0.0, -1.0, 2.0]) / z
print(A(jnp.max(w)), A(jnp.min(w)), A(jnp.argmax(w)), A(jnp.argmin(w)), A(jax.nn.logsumexp(w)))
print(A(jax.nn.logsumexp(a_([-1e30, -1e30]) * 1e10)), A(jax.nn.logsumexp(x[0, 0])), A(jax.nn.logsumexp(x, axis=(0, 1))[:2]))
print(A(jnp.mean(jnp.arange(12).reshape(3, 4), axis=0)), A(jnp.mean(a_([True, False, True, True]))))
print(A(jnp.sum(jnp.zeros(0))), A(jnp.prod(jnp.zeros(0))), A(jnp.all(jnp.zeros(0, bool))), A(jnp.any(jnp.zeros(0, bool))), A(jnp.sum(jnp.zeros((2, 0)), axis=1)))
print(A(jnp.sum(a_([4294967295, 2], jnp.uint32))), A(jnp.sum(a_([2147483647, 1], jnp.int32))), A(jnp.max(a_([0, 4294967295], jnp.uint32))), A(jnp.sum(a_([True, True, False]))))
print(A(jnp.max(a_([-5, -2], jnp.int32))), A(jnp.min(a_([1, 1, 0]).astype(bool))), A(jnp.argmax(a_([True, False, True]))), A(jnp.prod(a_([65536, 65536], jnp.int32))))
