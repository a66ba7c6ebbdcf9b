"""JAX twin of tests/golden/dot_transposed_lhs.spmd (dot14): grad's dW = A^T @ dC."""
import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

u01 = lambda k, s: jax.random.uniform(jax.random.key(k), s, jnp.float32, -1.0, 1.0)  # noqa: E731
a, b = u01(5, (22, 4)), u01(6, (4, 56))
print(np.asarray(jax.grad(lambda w: jnp.sum(jax.nn.relu(a @ w)))(b)[:2]))
x, y = u01(7, (51, 17)), u01(8, (17, 9))
gy = jax.grad(lambda w: jnp.sum(jax.nn.relu(x @ w)))(y)
print(np.asarray(gy[12:17]))
u, v = u01(9, (40, 23)), u01(10, (23, 13))
gu = jax.grad(lambda w: jnp.sum(jnp.tanh(u @ w)))(v)
print(np.asarray(gu[18:23]))
xs, ws = u01(11, (8, 33, 20)), u01(12, (20, 10))
gp = jax.pmap(lambda xi: jax.grad(lambda w: jnp.sum(jax.nn.relu(xi @ w)))(ws))(xs)
print(np.asarray(gp[3, 16:20]))
print(np.asarray(gp[5, 0]))
ta, tb = u01(13, (8, 40, 7)), u01(14, (8, 40, 20))
print(np.asarray(jax.pmap(lambda p, q: p.T @ q)(ta, tb)[2, 4:7]))
