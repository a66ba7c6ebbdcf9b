from r14_common import *
def h(x):
    def step(t, c):
        y, acc = c
        y = y * 0.9 + 0.1 * y * y
        return y, acc + jnp.sum(y)
    return lax.fori_loop(0, 5, step, (x, jnp.float32(0.0)))[1]
x0 = jnp.array([0.3, -0.2, 0.7])
print(A(h(x0)), A(jax.grad(h)(x0)))
print(A(jax.grad(lambda x: jnp.sum(jax.grad(h)(x)))(x0)))
print(A(jax.vmap(jax.grad(h))((jnp.arange(6.0) * 0.1).reshape(2, 3))))
