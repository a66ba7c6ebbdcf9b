from r14_common import *
x = jnp.arange(96.0).reshape(2, 3, 4, 4)
def f(xc):
    return (lax.all_gather(xc, 'a'), lax.all_gather(xc, 'b'), lax.all_gather(xc, ('a', 'c'), tiled=True),
            lax.ppermute(xc, 'c', [(k, (k + 1) % 4) for k in range(4)]), lax.ppermute(xc, 'a', [(0, 1)]),
            lax.all_to_all(xc, 'c', 0, 0), lax.psum_scatter(xc, 'c'), lax.psum_scatter(xc[:3], 'b', tiled=True))
r = pvp(f, x)
for k in range(8): print(r[k][1, 2])
