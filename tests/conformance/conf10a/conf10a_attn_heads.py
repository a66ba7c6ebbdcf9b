from conf10a_common import *
ks = R.split(R.key(7), 4)
x = R.normal(ks[0], (5, 8))
wq = R.normal(ks[1], (4, 8, 2)) * 0.5
wk = R.normal(ks[2], (4, 8, 2)) * 0.5
wv = R.normal(ks[3], (4, 8, 2)) * 0.5
def head(q, k, v):
    s = (x @ q) @ (x @ k).T / jnp.sqrt(2.0)
    p = jnp.exp(s - jnp.max(s, axis=1, keepdims=True))
    return (p / jnp.sum(p, axis=1, keepdims=True)) @ (x @ v)
hv = jax.vmap(head)(wq, wk, wv)
print(hv.shape, A(hv[2]))
hp = jax.pmap(head, axis_name='h')(wq, wk, wv)
print(A(hp[2] == hv[2]), A(jnp.sum(hp)), A(jnp.mean(hp * hp)))
out = jnp.transpose(hv, (1, 0, 2)).reshape(5, 8)
print(A(out[0]), A(jnp.sum(out, axis=1)))
