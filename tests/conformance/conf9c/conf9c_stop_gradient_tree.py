# JAX twin of conf9c_stop_gradient_tree.spmd (JAX 0.10.2, CPU, 8 host devices).
import os  # (conf9c_common-free: a fix golden's twin stands alone)
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import jax, jax.numpy as jnp, numpy as np
lax = jax.lax; A = np.asarray
def T(t): return "(" + ", ".join(T(x) if isinstance(x, (tuple, list)) else str(A(x)) for x in t) + ")"
t = (jnp.arange(3.0), (2.0, jnp.arange(2)), jnp.array([1.0, 2.0]))
print(T(lax.stop_gradient(t)))
def f(p):
    a, (b, c) = p
    sa, (sb, sc) = lax.stop_gradient((a, (b * 2.0, c * a[1])))
    return jnp.sum(a * sa) + b * sb + c * sc
print(T(jax.grad(f)((jnp.arange(3.0), (2.0, 0.5)))))
def td(online, target, x):
    w, b = online
    tw, tb = lax.stop_gradient(target)
    q = jnp.tanh(x @ w + b)
    y = 0.9 * jnp.tanh(x @ tw + tb) + 1.0
    return jnp.mean((q - y) ** 2)
x = jnp.sin(jnp.arange(8.0)).reshape(4, 2)
p = (jnp.full((2, 3), 0.25), jnp.zeros(3))
print(T(jax.grad(lambda o: td(o, o, x))(p)))
def body(xs):
    g1, g2 = jax.grad(lambda a, b: jnp.sum(a * lax.stop_gradient((a, b))[1] * b), argnums=(0, 1))(xs, xs * 2.0)
    return lax.psum(g1, 'i'), g2
r = jax.pmap(body, axis_name='i')(jnp.sin(jnp.arange(16.0)).reshape(8, 2))
print(A(r[0][0]), A(r[1][3]))
