import jax, jax.numpy as jnp, numpy as np
A = np.asarray
xs = jnp.linspace(0.0, 1.0, 20)
ys = 3.0 * xs - 1.0 + 0.1 * jnp.sin(jnp.arange(20.0) * 7.0)
def loss(w, b): return jnp.mean((w * xs + b - ys) ** 2)
w = jnp.float32(0.0)
b = jnp.float32(0.0)
for step in range(200):
    gw, gb = jax.grad(loss, argnums=(0, 1))(w, b)
    w = w - 0.5 * gw
    b = b - 0.5 * gb
print(A(w), A(b), A(loss(w, b)))
X = jnp.stack([xs, jnp.ones([20])], axis=1)
xtx = jnp.transpose(X) @ X
xty = jnp.transpose(X) @ ys
det = xtx[0, 0] * xtx[1, 1] - xtx[0, 1] * xtx[1, 0]
sol = jnp.array([xtx[1, 1] * xty[0] - xtx[0, 1] * xty[1], xtx[0, 0] * xty[1] - xtx[1, 0] * xty[0]])
print(A(xtx), A(xty), A(det), A(sol.astype(jnp.float32) / det))
v, g = jax.value_and_grad(lambda p: jnp.sum(p * p * xs[:3]))(jnp.array([1.0, -2.0, 3.0], jnp.float32))
print(A(v), A(g))
