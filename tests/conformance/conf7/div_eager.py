import jax, jax.numpy as jnp, numpy as np
A = np.asarray; a_ = jnp.array
v = np.float32(0.1548)
x = jnp.float32(v) + jnp.zeros(())
print(A(x / 3.0), A((a_([x]) / 3.0)[0]), A((a_([x]).reshape(1, 1) / 3.0)[0, 0]), A((a_([x, x, x, x]) / 3.0)[1]))
print(A(jax.pmap(lambda y: y / 3.0)(a_([x, x]))[0]), A(jax.pmap(lambda y: y / 3.0)(a_([[x], [x]]))[1, 0]))
print(A(jax.vmap(lambda y: y / 3.0)(a_([x, x, x, x]))[0]), A(jax.vmap(lambda y: y / 3.0)(a_([x]))[0]))
def f(a): return a / 3.0
t = jax.tree_util.tree_map(lambda a: a / 3.0, (x, a_([x, x])))
print(A(f(x)), A(t[0]), A(t[1][0]))
s = x
for _ in range(3): s = s / 3.0
print(A(s), A(jnp.int32(7) / 3.0), A((a_([7, 7]) / 3.0)[0]))
print(A(jax.grad(lambda a: jnp.sin(a / 3.0))(x * 0.0 + 0.1)), A(jax.grad(lambda a: jnp.sum(jnp.sin(a / 3.0)))(a_([0.1, 0.1]))[0]))
print(A(jax.value_and_grad(lambda a: a / 3.0)(x)[0]), A(jnp.mean(a_([x, x, x]) * 1e-3)), A(jnp.sum(a_([x, x, x])) / 3.0))
print(A(jax.pmap(lambda y: jax.grad(lambda a: jnp.sin(a / 3.0))(y * 0.0 + 0.1))(a_([x, x]))[0]))
