from conf9c_common import *
def loss(w): return jnp.sum(w ** 4) * 0.25 + jnp.sum(jnp.sin(w) * w)
w = jnp.linspace(-1.0, 1.0, 5)
v = jnp.ones(5) * 0.5
print(A(jax.grad(lambda u: jnp.sum(jax.grad(loss)(u) * v))(w)))
def f1(x): return x ** 4 * 0.25 + jnp.sin(x) * x
print(A(jax.vmap(lambda x: jax.grad(jax.grad(f1))(x))(w)))
print(A(jax.grad(jax.grad(lambda x: x * x * x))(2.0)), A(jax.grad(jax.grad(lambda x: jnp.exp(x) * x))(0.5)))
def body(x0):
    def step(t, x):
        g = jax.grad(f1)(x)
        h = jax.grad(jax.grad(f1))(x)
        return x - g / lax.pmean(h, 'i')
    x = fori(3, step, x0)
    return x, f1(x)
r = pm(body, jnp.linspace(0.5, 2.0, 8))
print(A(r[0]))
print(A(r[1]))
