from conf9c_common import *
root = R.key(123)
def inner(ka, kb):
    k = R.fold_in(R.fold_in(kb, lax.axis_index('i')), lax.axis_index('j'))
    return jax.vmap(lambda e: jax.vmap(lambda s: R.normal(s, ()))(R.split(e, 2)))(R.split(k, 3))
kk = jax.vmap(lambda ka: R.split(ka, 2))(R.split(root, 4))
r = nest(lambda kb: inner(None, kb), kk)
print(A(r[1, 0]))
print(A(r[3, 1]))
def body(k):
    nb = lax.ppermute(k, 'i', [(j, (j + 1) % 8) for j in range(8)])
    al = R.wrap_key_data(lax.all_gather(R.key_data(k), 'i'))  # JAX 0.10 fails on all_gather of a key array in pmap
    return R.key_data(nb), R.key_data(al[lax.axis_index('i')]) == R.key_data(k), R.uniform(nb, (2,))
g = pm(body, R.split(root, 8))
print(A(g[0]))
print(A(jnp.all(g[1])))
print(A(g[2]))
print(A(jax.vmap(lambda k: jax.vmap(lambda kk: R.key_data(R.fold_in(kk, 5)))(R.split(k, 3)))(R.split(root, 2))))
