from r14_common import *
k = R.key(31)
def body(x):
    def inner(t):
        kk = R.fold_in(R.fold_in(k, lax.axis_index('i')), t)
        n = R.normal(kk, [16])
        return jnp.mean(n), lax.psum(jnp.sum(R.uniform(kk, [8])), 'j'), jnp.sum(R.bernoulli(kk, 0.5, [10]).astype(jnp.int32))
    s = jax.vmap(inner, axis_name='j')(jnp.arange(4))
    return s[0], lax.psum(s[1], 'i'), lax.psum(s[2], 'i')
r = pm(body, jnp.arange(8.0))
print(A(r[0]))
print(A(r[1]), A(r[2]))
