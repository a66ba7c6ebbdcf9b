from conf10a_common import *
k = R.key(2024)
def body(d):
    kd = R.fold_in(k, d)
    ks = R.split(kd, 2)
    x = R.normal(ks[0], (256,))
    p = R.uniform(ks[1], (256, 2), minval=-1.0, maxval=1.0)
    hit = jnp.sum(p * p, axis=1) < 1.0
    return jnp.mean(jnp.exp(-x * x)), jnp.sum(hit.astype(jnp.int32)), x[:3]
est, inside, draws = pm(body, jnp.arange(8))
print(A(est))
print(A(jnp.mean(est)), A(4.0 * jnp.sum(inside).astype(jnp.float32) / 2048.0), A(jnp.sum(inside)))
print(A(draws[7]), A(jnp.mean(draws)), A(jnp.max(est) - jnp.min(est)))
