from conf10a_common import *
m = R.normal(R.key(30), (8, 8)) * 0.3 + jnp.eye(8) * 4.0
b = jnp.sin(jnp.arange(8.0))
def body(row, bi):
    ai = lax.axis_index('i')
    d = row[ai]
    def step(t, x):
        full = lax.all_gather(x, 'i', tiled=True)
        return ((bi - (jnp.sum(row * full) - d * full[ai])) / d).reshape(1)
    return fori(30, step, jnp.zeros(1))
xs = pm(body, m, b)
x = xs.reshape(8)
print(A(x))
r = m @ x - b
print(A(jnp.sqrt(jnp.sum(r * r))), A(jnp.max(jnp.abs(r))), A(jnp.mean(xs)), A(jnp.sum(xs * xs)))
