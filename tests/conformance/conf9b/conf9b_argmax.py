from conf9b_common import *
v = jnp.round(jnp.sin(jnp.arange(64.0) * 0.9) * 4.0).reshape(8, 8)
def body(s):
    lmax = jnp.max(s)
    lidx = jnp.argmax(s) + lax.axis_index('i') * 8
    gmax = lax.pmax(lmax, 'i')
    cand = jnp.where(lmax == gmax, lidx, 1000000)
    best = lax.pmin(cand, 'i')
    mine = best // 8 == lax.axis_index('i')
    return best, lax.psum(jnp.where(mine, s[best % 8], 0.0), 'i'), lax.psum(mine.astype(jnp.int32) * lax.axis_index('i'), 'i')
gi, gv, owner = pm(body, v)
print(A(gi), A(gv), A(owner))
print(A(jnp.argmax(v.ravel())), A(jnp.max(v)))
def b2(s):
    gmin = lax.pmin(jnp.min(s), 'i')
    return lax.pmin(jnp.where(jnp.min(s) == gmin, jnp.argmin(s) + lax.axis_index('i') * 8, 99), 'i'), gmin
mi, mn = pm(b2, v)
print(A(mi[0]), A(mn[0]), A(jnp.argmin(v.ravel())))
w = jnp.cos(jnp.arange(48.0) * 2.3).reshape(8, 3, 2)
print(A(pm(lambda s: jax.vmap(lambda r: lax.pmax(jnp.max(r), 'i'))(s), w)[0]))
