from r14_common import *
ks = R.split(R.key(123), 8)
def body(k):
    k1, k2 = R.split(k)[0], R.split(k)[1]
    moved = lax.ppermute(k1, 'i', [(j, (j + 3) % 8) for j in range(8)])
    allk = lax.all_gather(R.key_data(k2), 'i')  # JAX 0.10 cannot lower an all_gather of typed keys in pmap
    pick = jnp.where(lax.axis_index('i') % 2 == 0, k1, k2)
    v = jax.vmap(lambda kk: R.bernoulli(kk, 0.25, [3]))(R.split(k, 4))
    return R.uniform(moved, []), allk[7], R.uniform(pick, [2]), k1 == moved, lax.psum(jnp.sum(v.astype(jnp.int32)), 'i')
r = pm(body, ks)
print(A(r[0]), A(r[1]), A(r[2]), A(r[3]), A(r[4]))
