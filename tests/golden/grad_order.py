# JAX twin of grad_order.spmd (JAX 0.10.2 on the CPU, x64 off): its output is grad_order.out.
import jax, jax.numpy as jnp, numpy as np
A = np.asarray
f = lambda x: x ** 3 * jnp.sin(x) - jnp.exp(-x * x)
print(A(jax.grad(jax.grad(f))(1.5)), A(jax.grad(jax.grad(jax.grad(f)))(0.7)))
f1 = lambda x: jnp.sin(x * x) / (((x + x) + x / (x * x + 1.0)) * ((x + x) + x / (x * x + 1.0)) + 1.0)
print(A(jax.grad(jax.grad(f1))(-1.17)))
f2 = lambda x: jnp.sin(((2.0 + x) - x ** 2) - ((x - x) + (x + x)))
print(A(jax.grad(jax.grad(f2))(1.3)))
f3 = lambda x: ((0.7 + x) - jnp.exp(0.5)) * jnp.cos(jnp.cos(x))
print(A(jax.grad(jax.grad(jax.grad(f3)))(1.4)))
f4 = lambda x: jnp.exp((x - 0.3) / ((x + x) * (x + x) + 1.0)) + x ** 3 * jnp.cos(x) * (jnp.log(x * x + 1.0) / 5.0)
print(A(jax.grad(lambda u: jnp.sum(jax.grad(lambda v: jnp.sum(f4(v)))(u) * jnp.array([-0.72, -0.44, 0.02, -0.91])))(jnp.array([-1.47, 1.36, -0.27, 1.36]))))
f5 = lambda x: (0.5 + x) / (x * x + 1.0)
print(A(jax.vmap(lambda e: jnp.sum(jax.grad(lambda v: jnp.sum(jax.grad(lambda w: jnp.sum(f5(w)))(v) * e))(jnp.array([-0.85, -0.54, -0.33, -0.99])) * e))(jnp.eye(4))))
