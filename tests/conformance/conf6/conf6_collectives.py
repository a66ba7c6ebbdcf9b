import jax, jax.numpy as jnp, numpy as np
A = np.asarray; lax = jax.lax
def pm(f, *xs): return jax.pmap(f, axis_name='i')(*xs)
x = jnp.arange(64.0).reshape(8, 8)
def body(row):
    s = lax.psum(row, 'i'); m = lax.pmax(row * -1.0 - 1.0, "i"); mn = lax.pmin(row[0], 'i')
    g = lax.all_gather(row[1], 'i'); pp = lax.ppermute(row[:2], 'i', [(j, (j + 3) % 8) for j in range(8)])
    return s, m, mn, g, pp, lax.axis_index('i') * 8
s, m, mn, g, pp, idx = pm(body, x)
print(A(s[0]), A(m[3]))
print(A(mn), A(g[2]))
print(A(pp))
print(A(idx))
print(A(pm(lambda row: lax.psum_scatter(row, 'i'), x)))
print(A(pm(lambda row: lax.psum_scatter(row.reshape(1, 8), 'i', scatter_dimension=1, tiled=True), x)))
print(A(pm(lambda row: lax.all_to_all(row, 'i', 0, 0), x)))
print(A(pm(lambda row: lax.all_gather(row[:2], 'i', tiled=True), x)[1]))
print(A(pm(lambda row: lax.pmean(row[0], 'i'), x)))
print(A(pm(lambda row: lax.ppermute(row[0], 'i', [(0, 1), (1, 0)]), x)))
half = pm(lambda row: lax.psum(row, 'i') / 4.0, x.reshape(4, 16))
print(A(half[0]))
print(A(pm(lambda b: lax.psum(b.astype(jnp.int32), 'i'), jnp.array([True, False, True, True]))))
print(A(pm(lambda v: lax.pmax(v, 'i') - lax.pmin(v, 'i'), jnp.arange(8))))
print(A(pm(lambda u: lax.psum(u, 'i'), jnp.arange(8).astype(jnp.uint32))))
