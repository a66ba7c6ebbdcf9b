from conf8b_common import *
R = jax.random
pm = lambda f, *a: jax.pmap(f, axis_name='i')(*a)
n = 8
x = (jnp.arange(32.0) * 0.25 - 3.0).reshape(8, 4)
ring = [(j, (j + 1) % n) for j in range(n)]
def body(v):
    acc = v; msg = v
    for t in range(7):
        msg = lax.ppermute(msg, 'i', ring); acc = acc + msg
    return acc, lax.psum(v, 'i')
acc, ref = pm(body, x)
print(A(acc[3]), A(ref[3]))
def st(v):
    h = v
    for t in range(3):
        h = lax.ppermute(jnp.tanh(h), 'i', [(j, j + 1) for j in range(7)])
        if t == 1: h = h * 2.0
    return h
print(A(pm(st, x)))
keys = jax.vmap(lambda kk: R.split(kk, 2))(R.split(R.key(4), 3))
print(keys.shape, A(R.key_data(keys[2])))
print(A(jax.vmap(lambda j: R.key_data(R.fold_in(R.key(1), j)))(jnp.arange(4) - 2)))
print(A(jax.vmap(lambda kk, lo, hi: R.randint(kk, (3,), lo, hi))(R.split(R.key(6), 4), jnp.array([-3, 0, 5, 100]), jnp.array([3, 1, 6, 1000]))))
print(A(R.bernoulli(R.key(2), jnp.array([-0.5, 0.0, 1.0, 1.5, 0.999]))))
print(A(R.key_data(jnp.where(jnp.arange(4) > 1, R.split(R.key(1), 4), R.split(R.key(2), 4)))))
print(A(R.key_data(R.split(R.key(1), 0))), R.split(R.key(1), 0).shape)
print(A(R.uniform(R.key(3), (3,), minval=2.0, maxval=1.0)))
