from r14_common import *
def f(x):
    return lax.cond(jnp.sum(x) > 0.0, lambda x: jnp.sum(jnp.sin(x) * x), lambda x: jnp.sum(x * x * x), x)
a = jnp.array([0.5, 1.0, -0.25])
print(A(jax.grad(f)(a)), A(jax.grad(f)(-a)))
print(A(jax.grad(lambda x: jnp.sum(jax.grad(f)(x)))(a)), A(jax.grad(lambda x: jnp.sum(jax.grad(f)(x)))(-a)))
v, g = jax.value_and_grad(f)(a * 3.0)
print(A(v), A(g))
