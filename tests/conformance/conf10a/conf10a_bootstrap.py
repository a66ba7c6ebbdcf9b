from conf10a_common import *
data = R.normal(R.key(60), (40,)) * 2.0 + 1.0
def body(k):
    idx = R.randint(k, (40,), 0, 40)
    w = jnp.sum(jax.nn.one_hot(idx, 40), axis=0)
    return jnp.sum(w * data) / 40.0
means = pm(body, R.split(R.key(61), 8))
print(A(means))
mu = jnp.mean(means)
print(A(mu), A(jnp.sqrt(jnp.mean((means - mu) ** 2))), A(jnp.mean(data)), A(jnp.max(means) - jnp.min(means)))
