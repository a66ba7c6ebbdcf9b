from r14_common import *
k = R.key(5)
print(A(R.uniform(k, [3], minval=2.0, maxval=2.0)), A(R.uniform(k, [3], minval=1.0, maxval=-1.0)))
print(A(R.uniform(k, [4], minval=-3e38, maxval=3e38)))
print(A(R.uniform(k, [2, 3], minval=jnp.array([0.0, 10.0, 100.0]), maxval=jnp.array([1.0, 20.0, 1000.0]))))
print(A(R.normal(k, [3, 5])), A(R.normal(k, [0])), A(R.normal(k, [])))
print(A(R.uniform(k, [7]) < 0.5), A(R.bernoulli(k, jnp.array([0.0, 1.0, 0.5, -1.0, 2.0]))))
