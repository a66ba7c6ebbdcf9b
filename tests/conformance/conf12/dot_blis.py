# JAX twin of tests/golden/dot_blis.spmd (its prints; the assert_close lines are checks)
import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
import jax, jax.numpy as jnp, numpy as np
A = np.asarray
U = lambda k, s: jax.random.uniform(jax.random.key(k), s, minval=-1.0, maxval=1.0)
a, b, bt, at = U(0, [37, 300]), U(1, [300, 45]), U(2, [45, 300]), U(3, [300, 37])
p = a @ b
print(A(p[0, 0:4]), A(p[36, 41:45]))
q = a @ bt.T
print(A(q[0, 0:4]), A(q[36, 41:45]))
r = at.T @ b
print(A(r[5, 0:4]))
s = at.T @ bt.T
print(A(s[7, 3:7]))
t, u = U(4, [3, 40, 260]), U(5, [3, 260, 33])
tu = t @ u
print(tu.shape, A(tu[2, 39, 0:4]))
keys = jax.random.split(jax.random.key(6), 4)
ms = jax.pmap(lambda k: jax.random.uniform(k, [48, 280], minval=-1.0, maxval=1.0))(keys)
prods = jax.pmap(lambda m: m @ m.T)(ms)
print(A(prods[3][47, 44:48]))
gw = jax.grad(lambda w: jnp.sum(jnp.sin(a @ w)))(b)
ga = jax.grad(lambda x: jnp.sum(jnp.sin(x @ b)))(a)
print(A(gw[299, 0:4]), A(ga[36, 296:300]))
vgw = jax.vmap(lambda x, y: jax.grad(lambda w: jnp.sum(jnp.sin(x @ w)))(y))(t, u)
vgx = jax.vmap(lambda x, y: jax.grad(lambda z: jnp.sum(jnp.sin(z @ y)))(x))(t, u)
print(vgw.shape, A(vgx[0, 39, 256:260]))
