from r14_common import *
def body(x):
    def f(v):
        y = lax.fori_loop(0, 3, lambda t, y: jnp.tanh(y * 1.5) + 0.1 * y, v)
        return jnp.sum(y * y)
    g = jax.grad(f)(x)
    gg = jax.vmap(jax.grad(jax.grad(lambda u: jnp.sin(u) * u * u)))(x)
    return g, lax.psum(g, 'i'), gg
r = pm(body, (jnp.arange(16.0) * 0.2 - 1.5).reshape(8, 2))
print(A(r[0]), A(r[1]), A(r[2]))
