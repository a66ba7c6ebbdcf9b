"""JAX twin of tests/golden/dot_ynn_tiles.spmd (dot18): products in YNNPACK's tiles and k
slices on an AVX-512 host."""
import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

u01 = lambda k, s: jax.random.uniform(jax.random.key(k), s, jnp.float32, -1.0, 1.0)  # noqa: E731
A = np.asarray
a, b = u01(1, (48, 415)), u01(2, (415, 221))
ab = a @ b
print(A(ab[5, 124:132]), A(ab[47, 213:221]))
c, d = u01(3, (24, 585)), u01(4, (585, 284))
cd = c @ d
print(A(cd[3, 252:260]), A(cd[23, 276:284]))
e, f = u01(5, (184, 559)), u01(6, (559, 60))
ef = e @ f
print(A(ef[0, 0:6]), A(ef[183, 54:60]))
x, w = u01(7, (100, 784)), u01(8, (784, 512))
print(A((x @ w)[99, 504:512]))
g, h = u01(9, (6, 695)), u01(10, (695, 134))
print(A((g @ h)[5, 124:134]))
p, q = u01(11, (12, 900)), u01(12, (900, 40))
print(A((p @ q)[11, 32:40]))
r, s = u01(13, (123, 193)), u01(14, (193, 2252))
gr = jax.grad(lambda z: jnp.sum(jnp.sin(z @ s)))(r)
print(A(gr[122, 185:193]))
t, u = u01(15, (3, 40, 260)), u01(16, (3, 260, 33))
vg = jax.vmap(lambda z, y: jax.grad(lambda v: jnp.sum(jnp.sin(v @ y)))(z))(t, u)
print(A(vg[2, 39, 252:260]))
t2, u2 = u01(17, (2, 41, 116)), u01(18, (2, 116, 1652))
vg2 = jax.vmap(lambda z, y: jax.grad(lambda v: jnp.sum(jnp.sin(v @ y)))(z))(t2, u2)
print(A(vg2[1, 40, 108:116]))
k1, k2 = u01(19, (30, 6000)), u01(20, (6000, 100))
print(A((k1 @ k2)[29, 56:72]))
z3, s3 = u01(21, (100, 20)), u01(22, (20, 5000))
print(A(jax.grad(lambda z: jnp.sum(jnp.sin(z @ s3)))(z3)[99, 12:20]))
t4, u4 = u01(23, (3, 10, 20)), u01(24, (3, 20, 30))
vg4 = jax.vmap(lambda z, y: jax.grad(lambda v: jnp.sum(jnp.sin(v @ y)))(z))(t4, u4)
print(A(vg4[2, 9, 0:8]))
