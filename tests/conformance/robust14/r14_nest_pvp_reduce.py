from r14_common import *
x = (jnp.sin(jnp.arange(48.0)) * 10.0).reshape(2, 3, 4, 2)
def f(xc):
    return (lax.psum(xc, 'a'), lax.psum(xc, 'b'), lax.psum(xc, 'c'), lax.psum(xc, ('a', 'b', 'c')),
            lax.pmax(xc, ('c', 'a')), lax.pmin(xc, 'b'), lax.pmean(xc, ('b', 'c')),
            lax.axis_index(('a', 'b', 'c')), lax.axis_index(('c', 'b')))
r = pvp(f, x)
for k in range(9): print(r[k])
