from conf9c_common import *
tok = (jnp.arange(8 * 4 * 5) * 7 % 10).reshape(8, 4, 5)
def inner(s):
    seen = jax.nn.one_hot(s, 10) > 0.0
    cnt = jnp.sum(seen.astype(jnp.int32), axis=0)
    return (lax.psum(cnt, 'b'), lax.psum(cnt, ('i', 'b')), lax.pmax(seen[0], 'b'), lax.pmin(seen[0], ('b', 'i')),
            lax.all_gather(s, 'b', axis=1), lax.all_gather(s[:2], 'b', tiled=True), lax.pmean(cnt, 'b'), lax.pmax(s, 'i'))
r = pm(lambda d: jax.vmap(inner, axis_name='b')(d), tok)
print(A(r[0][0, 0]))
print(A(r[1][3, 2]))
print(A(r[2][1]), A(r[3][1]))
print(A(r[4][2, 1]))
print(A(r[5][5, 3]))
print(A(r[6][7, 0]))
print(A(r[7][0]))
