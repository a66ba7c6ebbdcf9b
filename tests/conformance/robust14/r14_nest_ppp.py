from r14_common import *
x = (jnp.arange(32.0) * 0.5 - 3.0).reshape(2, 2, 2, 4)
def f(xc):
    s = lax.psum(xc, ('a', 'c'))
    g = lax.all_gather(jnp.sum(xc), ('c', 'b'))
    p = lax.ppermute(xc, ('a', 'b'), [(0, 3), (3, 0), (1, 2), (2, 1)])
    t = lax.all_to_all(xc.reshape(2, 2), 'a', 0, 1)
    return s, g, p, t, lax.pmax(xc, ('a', 'b', 'c')), lax.psum_scatter(xc, ('b', 'c'), tiled=True), lax.axis_index(('b', 'a'))
r = nest(f, x, shape=(2, 2, 2), names=("a", "b", "c"))
for k in range(7): print(r[k][1, 0])
