import jax, jax.numpy as jnp, numpy as np
A = np.asarray
def loss(p, x):
    w, b = p
    return jnp.sum((jnp.tanh(x * w + b) - 0.5) ** 2)
x = jnp.arange(6.0) / 6.0
p = (jnp.linspace(-1.0, 1.0, 6), jnp.array([0.1]))
v, g = jax.value_and_grad(loss)(p, x)
print(A(v)); print(A(g[0])); print(A(g[1]))
p2 = jax.tree_util.tree_map(lambda a, d: a - 0.1 * d, p, g)
print("(%s, %s)" % (A(p2[0]), A(p2[1])))
print(A(jax.grad(loss, argnums=1)(p, x)))
print(A(jax.grad(lambda t: jnp.sum(jax.nn.relu(t) * jnp.abs(t) + jnp.maximum(t, 0.5)))(jnp.array([-1.0, 0.0, 0.5, 2.0]))))
print(A(jax.grad(lambda t: jnp.sum(jnp.clip(t, -0.5, 0.5) + jnp.floor(t) + jnp.sign(t) * t))(jnp.array([-1.0, -0.5, 0.0, 0.5, 2.0]))))
print(A(jax.grad(lambda t: jnp.sum(jnp.where(t > 0.0, jnp.sqrt(jnp.abs(t)), t * t)))(jnp.array([-2.0, 0.0, 4.0]))))
print(A(jax.grad(lambda t: jax.nn.logsumexp(t * 2.0))(jnp.array([0.0, 1.0, -1.0]))))
print(A(jax.grad(lambda t: jnp.max(t))(jnp.array([1.0, 3.0, 3.0, 2.0]))))
print(A(jax.grad(lambda t: jnp.prod(t))(jnp.array([2.0, 0.0, 3.0]))))
print(A(jax.grad(lambda t: jnp.mean(jnp.exp(t) / jnp.sum(jnp.exp(t))))(jnp.array([0.5, 1.5]))))
vv, gg = jax.value_and_grad(lambda a, b: jnp.sum(a * b) + jnp.sum(a), argnums=(0, 1))(jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0]))
print(A(vv), "(%s, %s)" % (A(gg[0]), A(gg[1])))
w = jnp.array([0.5, -0.5])
for t in range(5):
    w = w - 0.25 * jax.grad(lambda u: jnp.sum((u - jnp.array([1.0, 2.0])) ** 2))(w)
print(A(w))
print(A(jax.grad(lambda s: s ** 3.0 + jnp.sin(s) * jnp.cos(s))(jnp.float32(0.7))))
print(A(jax.grad(lambda t: jnp.sum(t[1:] * t[:-1]) + t[0])(jnp.arange(4.0))))
