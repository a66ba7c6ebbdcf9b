from r14_common import *
z = jnp.zeros([1])
nan = (z / z)[0]
x = jnp.stack([1.0, nan, 3.0, -1.0, nan, 0.0])
print(A(jnp.max(x)), A(jnp.min(x)), A(jnp.argmax(x)), A(jnp.argmin(x)), A(jnp.sum(x)), A(jnp.prod(x[2:4])))
print(A(jnp.maximum(x, 2.0)), A(jnp.minimum(x, 0.5)), A(jnp.clip(x, -0.5, 0.5)), A(x > 0.0), A(x != x))
print(A(jnp.all(x == x)), A(jnp.any(x != x)), A(jnp.sum(x == x)), A(jnp.where(x == x, x, -9.0)))
print(T(pm(lambda v: (lax.pmax(v, 'i'), lax.pmin(v, 'i'), lax.psum(v, 'i'), lax.pmax(jnp.where(v == v, v, -1.0), 'i')), jnp.stack([nan, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]))))
print(A(jnp.max(x.reshape(2, 3), axis=1)), A(jnp.argmax(x.reshape(3, 2), axis=0)), A(jnp.argmin(x.reshape(2, 3), axis=1)))
