from conf9c_common import *
U = jnp.uint32
seeds = jnp.arange(32).reshape(8, 4).astype(U) * U(2654435761)
def hb(s):
    x = s ^ (s // U(32768))
    return lax.psum(x, 'i'), lax.pmax(x, 'i'), lax.pmin(x, 'i'), x + U(4294967295)
h = pm(hb, seeds)
print(A(h[0][0]))
print(A(h[1][1]), A(h[2][2]))
print(A(h[3][3]))
flags = (jnp.arange(24) % 5 == 0).reshape(8, 3)
def bb(f):
    return lax.psum(f, 'i'), lax.pmax(f, 'i'), lax.pmin(f, 'i'), lax.all_gather(f, 'i')[2], lax.ppermute(f, 'i', [(j, (j + 3) % 8) for j in range(8)])
b = pm(bb, flags)
print(A(b[0][0]), A(b[1][0]), A(b[2][0]))
print(A(b[3][0]))
print(A(b[4]))
print(T(pm(lambda f: (lax.psum(f, 'i') * 2, lax.psum(f, 'i') + 0.5, lax.pmax(f, 'i') & f), flags)))
print(A(pm(lambda x: x - U(3), jnp.arange(8).astype(U))))
