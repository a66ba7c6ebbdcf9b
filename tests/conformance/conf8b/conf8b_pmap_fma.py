from conf8b_common import *
# Inside jax.pmap each body is one XLA computation: XLA:CPU contracts a multiply whose only
# use is an add or subtract into an fma (also in its own reduction loops, not in YNNPACK's
# sums of 4096 elements or more); the host-level lines are eager and round twice.
pm = lambda f, *a: jax.pmap(f, axis_name='i')(*a)
x = jnp.linspace(0.1, 3.7, 8)
print(A(pm(lambda v: v * 0.3 + 0.7, x)))
print(A(x * 0.3 + 0.7))
k = R.split(R.key(8), 4)[1]
print(A(pm(lambda v: R.normal(k, (2,)) + v, x)))
xs = R.uniform(R.key(11), (32,), minval=-1.0, maxval=1.0).reshape(8, 4)
ys = xs * 3.0 - 0.5
def loss(w, b, x, y): return jnp.mean((x * w + b - y) ** 2)
print(A(pm(lambda x, y: loss(2.9, -0.41, x, y), xs, ys)))
print(T(pm(lambda x, y: jax.grad(loss, argnums=(0, 1))(2.9, -0.41, x, y), xs, ys)))
print(A(pm(lambda x: jnp.sum(x * x - 0.3), xs)), A(jax.vmap(lambda x: jnp.sum(x * x - 0.3))(xs)))
big = R.uniform(R.key(3), (8 * 4096,), minval=-2.0, maxval=2.0).reshape(8, 4096)
print(A(pm(lambda c: jnp.sum(c * c - 0.7), big)))
ring = [(j, (j + 1) % 8) for j in range(8)]
def ring_loss(x):
    def b(v):
        # spmdrun's `for` is a loop, as lax.fori_loop (a Python loop would unroll, and XLA
        # would then fuse across iterations)
        def body(t, c):
            m, s = c
            m = lax.ppermute(m * v, 'i', ring)
            return m, s + m
        return lax.fori_loop(0, 3, body, (v, jnp.zeros(4)))[1]
    return jnp.sum(pm(b, x))
print(A(jax.grad(ring_loss)((jnp.arange(32.0) * 0.25 - 3.0).reshape(8, 4) * 0.1)[7]))
print(A(pm(lambda v: v[0] * v[1] - v[2] * v[3], xs)))
z = (jnp.arange(24.0) * 0.15625 + 0.1).reshape(8, 3)
print(A(pm(lambda v: jnp.sum(v * 0.3 + 0.7) * 1.1 + 0.3, z)), A(pm(lambda v: jnp.max(v * 0.37 - v), z)))
print(A(pm(lambda v: jnp.exp(v * 0.3) * 0.1 + jnp.sin(v), z)))
print(A(pm(lambda v: jnp.where(v > 1.0, v * 0.3 + 0.7, v * 1.1 - 0.2), z)))
print(A(pm(lambda v: (v * 0.3 + 0.7)[::-1] + v[0] * v, z)))
