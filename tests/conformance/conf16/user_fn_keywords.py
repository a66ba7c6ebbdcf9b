# JAX twin of tests/golden/user_fn_keywords.spmd (its .out is this program's output).
import os
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import jax, jax.numpy as jnp, numpy as np
A = np.asarray
f = lambda x, y: x - y
g = lambda a, b: a * b
mse = lambda pred, target: jnp.mean((pred - target) ** 2)
print(A(f(y=1.0, x=3.0)), A(f(3.0, y=1.0)), A(f(3.0, 1.0)))
print(A(g(b=jnp.ones([2]), a=3.0)), A(jax.pmap(lambda v: g(b=jnp.stack([v, v]), a=2.0))(jnp.ones(8))))
print(A(mse(target=jnp.arange(3.0), pred=jnp.ones(3))), A(jax.vmap(lambda r: mse(r, target=jnp.arange(3.0)))(jnp.ones((2, 3)))))
