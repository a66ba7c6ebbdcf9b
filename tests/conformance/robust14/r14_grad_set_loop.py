from r14_common import *
def f(x):
    def step(t, buf):
        return buf.at[t].set(x[t] * x[(t + 1) % 4] + buf[(t + 3) % 4])
    buf = lax.fori_loop(0, 4, step, jnp.zeros([4]))
    return jnp.sum(buf * buf)
x = jnp.array([0.5, -1.0, 1.5, 2.0])
v, g = jax.value_and_grad(f)(x)
print(A(v), A(g))
print(A(jax.grad(lambda u: jnp.sum(jax.grad(f)(u) * x))(x)))
