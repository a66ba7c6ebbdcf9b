from conf9c_common import *
x = jnp.arange(64.0).reshape(8, 8)
def body(v):
    a, b = lax.all_to_all((v, v.astype(jnp.int32) % 5), 'i', 0, 0)
    c, (d, e) = lax.psum_scatter((v * 0.5, (v.astype(jnp.int32), v.reshape(8, 1))), 'i', scatter_dimension=0, tiled=True)
    t = lax.all_to_all((v.reshape(8, 1), (v > 20.0).reshape(8, 1)), 'i', 0, 1, tiled=True)
    return a, b, c, d, e, t[0], t[1]
r = pm(body, x)
print(A(r[0][3]))
print(A(r[1][6]))
print(A(r[2]), A(r[3]))
print(A(r[4][1]))
print(A(r[5][2]), A(r[6][7]))
def gb(v):
    def f(p):
        s, t = lax.psum_scatter((jnp.sin(p[0]), p[1] * 3.0), 'i', tiled=True)
        u, w = lax.all_to_all((p[2], jnp.exp(p[3])), 'i', 0, 0)
        return jnp.sum(s * 2.0) + jnp.sum(t * t) + jnp.sum(u * (lax.axis_index('i') + 1).astype(jnp.float32)) + jnp.sum(w * jnp.arange(8.0))
    return jax.grad(f)((v * 0.1, jnp.cos(v), v, jnp.sin(v)))
g = pm(gb, x)
print(A(g[0][2]))
print(A(g[1][5]))
print(A(g[2][1]), A(g[3][6]))
