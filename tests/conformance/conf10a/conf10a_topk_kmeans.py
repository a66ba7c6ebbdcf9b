from conf10a_common import *
s = R.normal(R.key(8), (4, 10))
def topk(r):
    m = r; idx = jnp.zeros(3, jnp.int32)
    for j in range(3):
        a = jnp.argmax(m)
        idx = idx.at[j].set(a)
        m = jnp.where(jnp.arange(10) == a, -1e9, m)
    return idx
print(A(jax.vmap(topk)(s)))
pts = R.normal(R.key(4), (8, 20, 2)) + ((jnp.arange(160) % 2).astype(jnp.float32) * 3.0).reshape(8, 20, 1)
cent = jnp.array([[0.0, 0.0], [1.0, 1.0]])
for it in range(3):
    def body(p):
        d = jnp.sum((p.reshape(20, 1, 2) - cent.reshape(1, 2, 2)) ** 2, axis=2)
        oh = jax.nn.one_hot(jnp.argmin(d, axis=1), 2)
        return lax.psum(oh.T @ p, 'i'), lax.psum(jnp.sum(oh, axis=0), 'i')
    sums, cnt = pm(body, pts)
    cent = sums[0] / cnt[0].reshape(2, 1)
    print(it, A(cent), A(cnt[0]))
