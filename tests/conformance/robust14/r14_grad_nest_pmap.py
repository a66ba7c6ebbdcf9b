from r14_common import *
xs = (jnp.arange(16.0) * 0.25).reshape(4, 2, 2)
def loss(w):
    def f(xj):
        y = jnp.tanh(xj * w)
        return lax.psum(jnp.sum(y), ('i', 'j')) + lax.pmean(jnp.sum(y * y), 'j') + jnp.sum(lax.all_gather(y, 'i')[0])
    return jnp.sum(nestj(f, xs))
w = jnp.array([1.0, -0.5])
print(A(loss(w)), A(jax.grad(loss)(w)))
g = nest(lambda xj: jax.grad(lambda v: lax.psum(jnp.sum(jnp.sin(v * xj)), ('i', 'j')))(xj), xs)
print(g)
