"""JAX twin of tests/golden/dot_ynn_kernels.spmd (dot15): `a @ b` in YNNPACK's kernels."""
import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

u01 = lambda k, s: jax.random.uniform(jax.random.key(k), s, jnp.float32, -1.0, 1.0)  # noqa: E731
P = lambda x: print(np.asarray(x))  # noqa: E731
a, b = u01(1, (62, 64)), u01(2, (64, 20))
P((a @ b)[7:10])
c, d = u01(3, (66, 13)), u01(4, (13, 20))
P((c @ d)[40:43])
e, f = u01(5, (90, 7)), u01(6, (7, 6))
P((e @ f)[80:86])
g, h = u01(7, (3, 61, 8)), u01(8, (3, 8, 24))
P((g @ h)[2, 50:53])
p, q = u01(9, (4, 64)), u01(10, (64, 4))
P(p @ q)
r, s = u01(11, (6, 40)), u01(12, (40, 8))
P(r @ s)
t, u = u01(13, (5, 3, 11)), u01(14, (5, 11, 5))
P((t @ u)[1:3])
v, w = u01(15, (4, 5, 30)), u01(16, (30, 6))
P(jax.vmap(lambda x: x @ w)(v)[2])
y, z = u01(17, (8, 6, 40)), u01(18, (8, 40, 8))
P(jax.pmap(lambda m, n: m @ n)(y, z)[3])
k1, k2 = u01(19, (12, 40)), u01(20, (40, 20))
P((k1 @ k2)[5:7])
zz = jax.pmap(lambda kz: jax.random.normal(kz, (4, 4)))(jax.random.split(jax.random.key(41), 8))
P(jax.vmap(lambda r: r @ r.T)(zz)[1:3])
t1, t2 = u01(21, (2, 4)), u01(22, (4, 5))
P(t1 @ t2)
t3, t4 = u01(23, (5, 6)), u01(24, (6, 7))
P(t3 @ t4)
