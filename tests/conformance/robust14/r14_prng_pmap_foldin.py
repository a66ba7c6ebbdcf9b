from r14_common import *
k = R.key(2026)
def body(x):
    kd = R.fold_in(k, lax.axis_index('i'))
    u = R.uniform(kd, [3])
    n = R.normal(R.fold_in(kd, 4294967295), [2])
    b = R.bernoulli(R.fold_in(kd, 123456789), 0.5, [4])
    return u, n, b, lax.psum(jnp.sum(u), 'i'), R.randint(kd, [], 0, 1000)
r = pm(body, jnp.arange(8.0))
print(A(r[0]), A(r[1]), A(r[2]), A(r[3]), A(r[4]))
print(A(R.key_data(R.fold_in(k, 0))), A(R.key_data(R.fold_in(k, 2147483647))))
