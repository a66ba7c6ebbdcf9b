from conf8b_common import *
xs = jnp.linspace(-1.0, 1.0, 12).reshape(4, 3)
ys = jnp.array([1.0, -1.0, 0.5, 0.0])
def per_example(w, x, y): return (jnp.tanh(jnp.dot(x, w)) - y) ** 2.0
def loss(w): return jnp.mean(jax.vmap(lambda x, y: per_example(w, x, y))(xs, ys))
w0 = jnp.array([0.3, -0.2, 0.1])
v, g = jax.value_and_grad(loss)(w0)
print(T((v, g)))
print(A(jax.vmap(lambda x, y: jax.grad(per_example)(w0, x, y))(xs, ys)))
def rnn(h0, w):
    h = h0
    for t in range(4):
        h = jnp.tanh(h * w[t % 3] + xs[t])
    return jnp.sum(h * h)
print(T(jax.grad(rnn, argnums=(0, 1))(jnp.array([0.1, 0.2, 0.3]), w0)))
def masked(x): return jnp.sum(jnp.where(x > 0.0, x * x, -x) + jnp.where(jnp.abs(x) < 0.5, 1.0, x))
print(A(jax.grad(masked)(xs)))
def pick(x, j): return x[j] * x[(j + 1) % 3] + x[-1]
print(A(jax.vmap(lambda x, j: jax.grad(pick)(x, j))(xs, jnp.array([0, 1, 2, 0]))))
def scatter(x): return jnp.sum(jnp.zeros(5).at[2].set(x[0] * 3.0) ** 2.0) + jnp.sum(x.at[1].set(0.0))
print(A(jax.grad(scatter)(jnp.array([1.0, 2.0, 3.0]))))
def slices(x): return jnp.sum(x[1:, ::2] * x[:-1, 1:2]) + jnp.sum(x[::-1, 0] * jnp.arange(4.0))
print(A(jax.grad(slices)(xs)))
print(A(jax.vmap(lambda x: jax.grad(lambda w: jnp.sum(jnp.sin(w * x)))(w0))(xs)))
print(A(jax.grad(lambda w: jnp.sum(jax.vmap(lambda x: jnp.dot(x, w) ** 2.0, in_axes=1)(xs)))(ys)))
print(A(jax.grad(lambda x: jnp.max(jax.vmap(lambda r: jnp.sum(r))(x)))(xs)))
