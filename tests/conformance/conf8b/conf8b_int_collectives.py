from conf8b_common import *
x = jnp.arange(16).reshape(4, 2, 2) - 5
s, mx, mn, pm = nest(lambda v: (lax.psum(v, ('i', 'j')), lax.pmax(v, 'i'), lax.pmin(v * v, 'j'), lax.pmean(v, ('j', 'i'))), x)
print(s[0, 0], mx[:, 1])
print(mn[2], pm[3, 1])
def vote(v):
    yes = v > 0
    return lax.psum(yes, ('i', 'j')), lax.pmax(yes, 'j'), lax.pmin(yes, ('i', 'j')), lax.pmean(yes, 'i')
votes = nest(vote, x)
print(votes[0][1, 1], votes[1][:, 0])
print(votes[2][0, 0], votes[3][2])
big = nest(lambda v: lax.psum(v.astype(jnp.uint32) * jnp.uint32(1000000000), ('i', 'j')), x)
print(big[1, 1], A(jnp.all(big[0, 0] == big[3, 1])))
def mixf(v):
    k = lax.axis_index(('i', 'j'))
    return lax.all_gather(k, ('j', 'i')), lax.ppermute(v > 2, ('i', 'j'), [(0, 7), (7, 3), (3, 0)]), lax.psum_scatter(jnp.concatenate([v, v]) * k, 'i', tiled=True)
mix = nest(mixf, x)
print(mix[0][2, 1], mix[1][:, :, 0])
print(mix[2][1])
print(nest(lambda v: lax.all_to_all(jnp.broadcast_to(v[0] % 3 == 0, (4,)), 'i', 0, 0), x)[:, 1])
print(nest(lambda v: lax.psum(1, ('i', 'j')) * 2 + lax.pmax(lax.axis_index('j'), 'i'), x))
print(nest(lambda v: lax.pmean(v.astype(jnp.uint32) % jnp.uint32(4), ('i', 'j')), x)[0])
