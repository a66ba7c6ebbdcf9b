from conf10a_common import *
a = 1.0 + jnp.arange(8.0) * 3.5
def body(c):
    return fori(12, lambda t, r: r - (r * r * r - c) / (3.0 * r * r), c)
roots = pm(body, a)
print(A(roots), A(roots ** 3.0 - a))
m0 = R.normal(R.key(3), (8, 8))
m = (m0 + m0.T) * 0.5
v = jnp.ones(8) / jnp.sqrt(8.0)
for t in range(25):
    mv = pm(lambda row: jnp.sum(row * v), m)
    v = mv / jnp.sqrt(jnp.sum(mv * mv))
lam = jnp.sum(v * (m @ v))
print(A(v), A(lam))
