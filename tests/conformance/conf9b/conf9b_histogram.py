from conf9b_common import *
def body(k):
    z = R.normal(k, (500,))
    b = jnp.floor((z + 2.5) / 0.5).astype(jnp.int32)
    inside = (b >= 0) & (b < 10)
    oh = jax.nn.one_hot(jnp.where(inside, b, 0), 10) * jnp.expand_dims(inside.astype(jnp.float32), 1)
    return lax.psum(jnp.sum(oh, axis=0).astype(jnp.int32), 'i'), lax.psum(jnp.sum((~inside).astype(jnp.int32)), 'i'), lax.pmax(jnp.max(jnp.abs(z)), 'i')
h, nout, mx = pm(body, R.split(R.key(11), 8))
print(A(h[0]), A(nout[0]), A(mx[3]))
cum = jnp.zeros(10, jnp.int32)
run = 0
for b in range(10):
    run = run + h[0][b]
    cum = cum.at[b].set(run)
print(A(cum), A(cum[9] + nout[0]))
print(A(jnp.argmax((cum >= 2000).astype(jnp.int32))))
print(A(jnp.all(h[0] == h[5])), A(jnp.sum(h[0]).astype(jnp.int32)))
