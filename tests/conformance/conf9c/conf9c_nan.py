from conf9c_common import *
raw = jnp.sin(jnp.arange(32.0)).reshape(8, 4)
x = jnp.where(raw > 0.9, jnp.float32(0.0) / 0.0, raw)
print(A(x))
def body(v):
    ok = v == v
    clean = jnp.where(ok, v, 0.0)
    n = lax.psum(jnp.sum(ok.astype(jnp.float32)), 'i')
    return lax.psum(jnp.sum(clean), 'i') / n, lax.pmax(jnp.max(v), 'i'), lax.pmin(v, 'i'), lax.psum(v, 'i'), v > 0.5, v != v, v <= 0.0
r = pm(body, x)
print(A(r[0][0]))
print(A(r[1]))
print(A(r[2][0]))
print(A(r[3][5]))
print(A(r[4][1]), A(r[5][1]), A(r[6][1]))
s = pm(lambda v: (jnp.max(v), jnp.min(v), jnp.argmax(v), jnp.argmin(v), jnp.maximum(v, 0.0), jnp.minimum(0.0, v)), x)
print(A(s[0]))
print(A(s[1]))
print(A(s[2]), A(s[3]))
print(A(s[4][1]), A(s[5][1]))
print(T(pm(lambda v: (v / 0.0, jnp.where(v / 0.0 > 0.0, 1, -1), 0.0 * (v / 0.0), lax.pmax(v / 0.0, 'i')), jnp.arange(8.0) - 4.0)))
print(A(jnp.sum(x)), A(jnp.mean(jnp.where(x == x, x, 0.0))), A(jnp.any(x != x)), A(jnp.all(x < 2.0)))
