from conf9c_common import *
n = jax.device_count()
def body(k):
    def step(t, c):
        pos, crossed = c
        pos = pos + R.normal(R.fold_in(k, t), (6,)) * 0.3
        return pos, crossed | (pos > 1.0)
    pos, crossed = fori(20, step, (jnp.zeros(6), jnp.zeros(6, bool)))
    return pos, lax.pmean(jnp.mean(pos * pos), 'i'), lax.psum(jnp.sum(crossed.astype(jnp.int32)), 'i'), lax.pmax(crossed, 'i'), lax.pmin(pos, 'i')
r = pm(body, R.split(R.key(5), n))
print(A(r[0][1]))
print(A(r[1][0]), A(r[2][0]))
print(A(r[3][0]))
print(A(r[4][0]))
def b2(k):
    u = R.uniform(k, (4, 3), minval=-1.0, maxval=1.0)
    coin = R.bernoulli(R.fold_in(k, 1), 0.3, (4, 3))
    return jnp.where(coin, u, -u), lax.psum(coin.astype(jnp.int32), 'i'), R.randint(R.fold_in(k, 2), (4,), -3, 3)
b = pm(b2, R.split(R.key(6), n))
print(A(b[0][n - 1]))
print(A(b[1][0]))
print(A(b[2]))
