from conf9b_common import *
n = 8
ks = R.split(R.key(7), 3)
x = R.normal(ks[0], (n, 6, 3))
w_true = jnp.array([1.5, -2.0, 0.5])
y = x @ w_true + 0.1 * R.normal(ks[1], (n, 6))

def loss(p, x, y):
    w, b = p
    return jnp.mean((x @ w + b - y) ** 2)

params = (jnp.zeros(3), jnp.float32(0.0))
for step in range(6):
    def body(xs, ys):
        l, g = jax.value_and_grad(loss)(params, xs, ys)
        g = jax.tree.map(lambda t: lax.pmean(t, 'i'), g)
        return lax.pmean(l, 'i'), jax.tree.map(lambda p, d: p - 0.1 * d, params, g)
    l, new = pm(body, x, y)
    params = jax.tree.map(lambda p: p[0], new)
    print("step", step, "loss", A(l[0]), A(l[3] == l[5]))
print(A(params[0]), A(params[1]))
