from conf9b_common import *
n = 8
items = 37
per = (items + n - 1) // n
xs = jnp.concatenate([jnp.linspace(0.5, 4.0, items), jnp.zeros(n * per - items)])
work = lambda x: jnp.sin(x) * jnp.exp(-x / 3.0)
def body(chunk):
    idx = lax.axis_index('i') * per + jnp.arange(per)
    valid = idx < items
    y = jnp.where(valid, jax.vmap(work)(chunk), 0.0)
    c = jnp.sum(valid.astype(jnp.int32))
    return y, c, lax.psum(jnp.sum(y), 'i'), lax.pmax(jnp.max(jnp.where(valid, y, -1e30)), 'i')
vals, counts, total, best = pm(body, xs.reshape(n, per))
print(vals.shape, A(counts))
print(A(vals.ravel()[:items][30:]))
print(A(total[0]), A(best[7]))
direct = jax.vmap(work)(jnp.linspace(0.5, 4.0, items))
print(A(vals.ravel()[:items] == direct))
print(A(jnp.sum(counts)), A(jnp.max(direct) == best[0]))
