from r14_common import *
U = jnp.uint32
def body(x):
    h = lax.fori_loop(0, 10, lambda t, h: h * U(1664525) + U(1013904223), x * U(2654435761))
    s = h.astype(jnp.int32) * 7
    return h, lax.psum(h, 'i'), lax.psum(s, 'i'), s % 16, -s // 1024, (h % U(1000)).astype(jnp.int32) - 500
r = pm(body, jnp.arange(8).astype(U))
print(A(r[0]), A(r[1]), A(r[2]), A(r[3]), A(r[4]), A(r[5]))
g = lax.fori_loop(0, 20, lambda t, g: g * U(69069) + U(1), U(1))
print(A(g), A(g.astype(jnp.int32)), A(g.astype(jnp.int32) % -7))
