from conf10a_common import *
x = jnp.linspace(-2.0, 2.0, 48).reshape(8, 6)
def loss(w):
    r = pm(lambda xs: (jnp.tanh(xs * w[0] + w[1]) - 0.5 * xs) ** 2, x)
    return jnp.mean(r) + 0.1 * jnp.max(r)
w = jnp.array([0.5, -0.2])
for step in range(4):
    l, g = jax.value_and_grad(loss)(w)
    w = w - 0.3 * g
    print(step, A(l), A(g))
print(A(w))
