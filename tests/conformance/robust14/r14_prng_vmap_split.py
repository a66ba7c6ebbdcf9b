from r14_common import *
ks = R.split(R.key(7), 5)
print(A(jax.vmap(lambda k: R.uniform(k, [3]))(ks)))
print(A(jax.vmap(lambda k: R.normal(k, [2]))(ks)))
print(A(jax.vmap(lambda k: R.randint(k, [4], -5, 5))(ks)))
print(A(jax.vmap(lambda k: R.bernoulli(k, 0.3, [6]))(ks)))
kk = jax.vmap(lambda k: R.split(k, 3))(ks)
print(A(R.key_data(kk)[2]))
print(A(jax.vmap(lambda k: R.uniform(R.split(k)[1], [], minval=-2.0, maxval=2.0))(ks)))
