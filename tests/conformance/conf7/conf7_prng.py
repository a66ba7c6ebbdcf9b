import jax, jax.numpy as jnp, numpy as np
A = np.asarray; R = jax.random
k = R.key(42)
ks = R.split(k, 4)
print(A(R.key_data(ks)))
print(A(R.uniform(ks[0], (5,), minval=-2.0, maxval=3.0)))
print(A(R.randint(ks[1], (8,), -5, 5)), A(R.randint(R.fold_in(k, 7), (2, 3), 0, 1000)))
print(A(R.bernoulli(ks[2], 0.3, (10,))), A(R.bernoulli(ks[3], jnp.array([0.1, 0.9, 0.5]))))
per = jax.vmap(lambda kk: R.uniform(kk, (2,)))(ks)
print(A(per))
dev = jax.pmap(lambda kk: jnp.sum(R.uniform(R.fold_in(kk, jax.lax.axis_index('i')), (4,))), axis_name='i')(R.split(R.key(1), 8))
print(A(dev))
folded = jax.vmap(lambda j: R.key_data(R.fold_in(k, j)))(jnp.arange(4))
print(A(folded))
kk = R.key(3)
draws = jnp.zeros((3, 2))
for t in range(3):
    a, b = R.split(kk)[0], R.split(kk)[1]
    kk = a
    draws = draws.at[t].set(R.uniform(b, (2,), minval=1.0, maxval=2.0))
print(A(draws))
print(A(R.key_data(kk)), A(R.key_data(R.split(k, 3)[1:])))
n = R.normal(R.key(7), (1000,))
print(A(jnp.abs(jnp.mean(n)) < 0.1), A(jnp.abs(jnp.mean(n * n) - 1.0) < 0.1), A(n[:3]))
print(A(R.uniform(R.key(0), (2, 2)) < 0.5), A(R.key_data(R.key(2 ** 31 - 1))))
print(A(jax.vmap(lambda kk: R.randint(kk, (), 0, 10))(R.split(R.key(5), 3))))
print(A(R.key_data(R.split(R.split(R.key(9), 2)[1], 3))))
