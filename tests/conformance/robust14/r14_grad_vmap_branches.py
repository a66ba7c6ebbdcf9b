from r14_common import *
f = lambda x: jnp.where(x > 1.0, jnp.log(x * x), x ** 3 - x)
xs5 = jnp.array([-2.0, 0.5, 1.0, 1.5, 4.0])
print(A(jax.vmap(jax.grad(f))(xs5)))
print(A(jax.vmap(jax.grad(jax.grad(f)))(xs5)))
print(A(jax.grad(jax.grad(jax.grad(lambda x: x ** 4 / (1.0 + x * x))))(0.7)))
w = jnp.array([0.3, -0.4])
xs = (jnp.arange(10.0) * 0.3 - 1.0).reshape(5, 2)
print(A(jax.vmap(lambda x: jax.grad(lambda w: jnp.log(1.0 + jnp.exp(-jnp.sum(w * x))))(w))(xs)))
