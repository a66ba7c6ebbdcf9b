from r14_common import *
z = jnp.array([0.0, -0.0, 0.0, -0.0])
w = jnp.array([-0.0, 0.0, 0.0, -0.0])
print(A(z + w), A(z - w), A(z * w), A(-z), A(z * -1.0))
print(A(jnp.maximum(z, w)), A(jnp.minimum(z, w)), A(jnp.max(z)), A(jnp.min(z)), A(jnp.sum(w)), A(jnp.sum(-jnp.zeros([3]))))
print(A(jnp.sign(z)), A(jnp.abs(w)), A(jnp.where(z == 0.0, w, 1.0)), A(jnp.sqrt(w)), A(jnp.floor(-z)), A(jnp.round(-jnp.array([0.4, 0.5]))))
print(T(pm(lambda v: (lax.psum(v, 'i'), lax.pmax(v, 'i'), lax.pmin(v, 'i'), v * 0.0), -jnp.zeros([8]))))
print(A(jnp.prod(-jnp.zeros([3]))), A(jnp.mean(-jnp.zeros([2]))), A(-jnp.zeros([2, 2]) @ jnp.ones([2, 2])))
