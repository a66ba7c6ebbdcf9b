from conf9b_common import *
ks = R.split(R.key(5), 3)
x = R.normal(ks[0], (8, 16, 3))
w_true = jnp.array([2.0, -1.0, 0.5])
labels = R.bernoulli(ks[1], jax.nn.sigmoid(x @ w_true))
def nll(w, x, y):
    z = x @ w
    return jnp.sum(jnp.log1p(jnp.exp(-jnp.abs(z))) + jnp.maximum(z, 0.0) - z * y.astype(jnp.float32))
def body(xs, ys):
    w = fori(20, lambda t, w: w - 0.5 * (lax.psum(jax.grad(nll)(w, xs, ys), 'i') / 128.0), jnp.zeros(3))
    return w, lax.psum(jnp.sum(((xs @ w > 0.0) == ys).astype(jnp.int32)), 'i'), lax.psum(nll(w, xs, ys), 'i') / 128.0
w, correct, l = pm(body, x, labels)
print(A(w[0]), A(correct[0]), A(l[0]))
print(A(jnp.sum(labels.astype(jnp.int32))))
