from conf9c_common import *
n = jax.device_count()
lo = jnp.full((2,), -2.0); hi = jnp.array([2.0, 3.0])
def body(k):
    p = R.uniform(R.fold_in(k, lax.axis_index('i')), (500, 2), minval=lo, maxval=hi)
    f = jnp.exp(-jnp.sum(p * p, axis=1))
    vol = (hi[0] - lo[0]) * (hi[1] - lo[1])
    m = jnp.mean(f) * vol
    hits = jnp.sum((f > 0.5).astype(jnp.int32))
    return m, lax.pmean(m, 'i'), jnp.sqrt(lax.pmean(m * m, 'i') - lax.pmean(m, 'i') ** 2), lax.psum(hits, 'i'), lax.pmax(hits, 'i')
est = pm(body, R.split(R.key(31), n))
print(A(est[0]))
print(A(est[1][0]), A(est[2][0]), A(est[3][0]), A(est[4][0]))
z = pm(lambda k: R.normal(k, (3, 4)), R.split(R.key(32), n))
print(A(jnp.mean(z)), A(z[n - 1]))
