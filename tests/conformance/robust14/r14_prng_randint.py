from r14_common import *
k = R.key(11)
print(A(R.randint(k, [6], -2147483648, 2147483647)))
print(A(R.randint(k, [4], 5, 5)), A(R.randint(k, [4], 5, 3)), A(R.randint(k, [4], -3, -2)))
print(A(R.randint(k, [5], jnp.array([0, -10, 100, 7, -2147483648], jnp.int32), jnp.array([1, 10, 200, 8, 0], jnp.int32))))
print(A(R.randint(k, [3], -1000000000, 2000000000)))
