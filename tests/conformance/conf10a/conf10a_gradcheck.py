from conf10a_common import *
f = lambda x: jnp.sum(jnp.sin(x) * x ** 2) + jnp.log1p(jnp.sum(x * x))
x0 = jnp.array([0.3, -1.2, 0.8, 2.0])
g = jax.grad(f)(x0)
h = 0.01
fd = jax.vmap(lambda e: (f(x0 + h * e) - f(x0 - h * e)) / (2.0 * h))(jnp.eye(4))
print(A(g), A(fd), A(jnp.max(jnp.abs(g - fd))))
dirs = R.normal(R.key(90), (8, 4))
dd = pm(lambda d: jnp.sum(jax.grad(f)(x0) * d), dirs)
print(A(dd), A(jnp.sum(dd)), A(dirs @ g))
