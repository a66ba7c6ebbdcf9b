from conf10a_common import *
def body(k):
    u = R.uniform(k, (100,))
    bins = jnp.floor(u * 10.0).astype(jnp.int32)
    c = jnp.sum(jax.nn.one_hot(bins, 10), axis=0)
    return lax.psum(c.astype(jnp.int32), 'i'), c.astype(jnp.int32)
counts, local = pm(body, R.split(R.key(99), 8))
c = counts[0]
print(A(c), A(jnp.sum(c)), A(jnp.sum(local, axis=0) == c))
cum = jnp.zeros(10, jnp.int32); run = 0
for b in range(10):
    run = run + c[b]
    cum = cum.at[b].set(run)
print(A(cum))
print(A(c.astype(jnp.float32) / 800.0), A(jnp.mean(local.astype(jnp.float32))), A(jnp.max(local)), A(jnp.argmax(c)))
