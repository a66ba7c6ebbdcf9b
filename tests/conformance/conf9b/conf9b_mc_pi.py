from conf9b_common import *
n = 8
keys = R.split(R.key(0), n)
def body(k):
    ka, kb = R.split(k)[0], R.split(k)[1]
    x = R.uniform(ka, (4096,))
    y = R.uniform(kb, (4096,))
    inside = jnp.sum((x * x + y * y <= 1.0).astype(jnp.int32))
    tot = lax.psum(inside, 'i')
    return tot, 4.0 * tot.astype(jnp.float32) / jnp.float32(4096 * n), inside.astype(jnp.float32) / 4096.0 * 4.0
hits, est, local = pm(body, keys)
print(A(hits[0]), A(est[0]))
print(A(local))
print(A(jnp.mean(local)), A(pm(lambda l: lax.pmean(l, 'i'), local)[2]))
v = jax.vmap(lambda k: jnp.sum((jnp.sum(R.uniform(k, (1024, 2)) ** 2, axis=1) <= 1.0).astype(jnp.int32)))(keys)
print(A(v), A(4.0 * jnp.sum(v).astype(jnp.float32) / 8192.0))
