from r14_common import *
e = jnp.zeros([0], jnp.int32)
print(A(jnp.sum(e)), A(jnp.prod(e)), A(jnp.any(e > 0)), A(jnp.all(e > 0)))
m = jnp.array([2147483647, 1, -2147483648, -1, 7, 7, 3, 7, 0], jnp.int32).reshape(3, 3)
print(A(jnp.sum(m, axis=0)), A(jnp.sum(m, axis=1, keepdims=True)), A(jnp.max(m, axis=1)), A(jnp.min(m, axis=0)))
print(A(jnp.mean(m)), A(jnp.mean(m, axis=1)), A(jnp.argmax(m, axis=1)), A(jnp.argmin(m, axis=0)))
x = jnp.array([2147483647, -2147483648, 5, -5, 0, 1, -1, 2147483647], jnp.int32)
r = pm(lambda x: (lax.psum(x, 'i'), lax.pmax(x, 'i'), lax.pmin(x, 'i'), lax.pmean(x, 'i')), x)
print(A(r[0]), A(r[1]), A(r[2]), A(r[3]))
