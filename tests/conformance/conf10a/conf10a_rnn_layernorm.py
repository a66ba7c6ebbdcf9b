from conf10a_common import *
ks = R.split(R.key(21), 4)
wx = R.normal(ks[0], (3, 5)) * 0.4
wh = R.normal(ks[1], (5, 5)) * 0.4
xs = R.normal(ks[2], (4, 6, 3))
def layernorm(h):
    mu = jnp.mean(h, axis=-1, keepdims=True)
    var = jnp.mean((h - mu) ** 2, axis=-1, keepdims=True)
    return (h - mu) / jnp.sqrt(var + 1e-5)
h = jnp.zeros((4, 5))
for t in range(6):
    h = jax.vmap(lambda hh, x: jnp.tanh(x[t] @ wx + hh @ wh))(h, xs)
print(A(h))
print(A(layernorm(h)))
def body(x):
    s = fori(6, lambda t, s: jnp.tanh(x[t] @ wx + s @ wh), jnp.zeros(5))
    return layernorm(s)
hp = pm(body, xs)
print(A(hp), A(jnp.mean(hp)), A(jnp.sum(hp * hp)))
