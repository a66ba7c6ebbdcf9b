from r14_common import *
w = jnp.array([0.5, -1.0, 2.0])
xs = (jnp.arange(24.0) * 0.1).reshape(8, 3)
def loss(w):
    def body(x, w):
        y = jnp.sin(x * w)
        g = lax.all_gather(y, 'i')
        p = lax.ppermute(y, 'i', [(k, (k + 1) % 8) for k in range(8)])
        return lax.psum(jnp.sum(y * p), 'i') + lax.pmean(jnp.sum(g[3] * y), 'i')
    return jnp.sum(jax.pmap(body, axis_name='i', in_axes=(0, None))(xs, w))
print(A(loss(w)), A(jax.grad(loss)(w)))
print(A(jax.grad(lambda v: jnp.sum(jax.grad(loss)(v)))(w)))
