from conf10a_common import *
n = 0.0; mu = 0.0; m2 = 0.0
for step in range(4):
    batch = pm(lambda k: R.normal(k, (16,)) * 2.0 + 3.0, R.split(R.fold_in(R.key(110), step), 8))
    bm = jnp.mean(batch)
    bv = jnp.mean((batch - bm) ** 2)
    nb = 128.0
    delta = bm - mu
    tot = n + nb
    mu = mu + delta * nb / tot
    m2 = m2 + bv * nb + delta * delta * n * nb / tot
    n = tot
    print(step, A(bm), A(bv), A(mu), A(m2 / n))
