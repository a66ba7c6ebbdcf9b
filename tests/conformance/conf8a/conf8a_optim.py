import jax, jax.numpy as jnp, numpy as np
A = np.asarray
xs = jnp.linspace(-1.0, 1.0, 12).reshape(6, 2)
ys = xs @ jnp.array([1.5, -0.5]) + 0.25
def predict(p, x):
    w, b = p; return jnp.sum(x * w, axis=1) + b
def loss(p): return jnp.mean((predict(p, xs) - ys) ** 2)
params = (jnp.zeros(2), jnp.float32(0.0))
vel = jax.tree.map(lambda a: a * 0.0, params)
lr = 0.5
for step in range(6):
    g = jax.grad(loss)(params)
    vel = jax.tree.map(lambda v, gi: 0.9 * v + gi, vel, g)
    params = jax.tree.map(lambda p, v: p - lr * v, params, vel)
    l = loss(params)
    lr = lr if l > 0.1 else lr * 0.5
    print(step, A(l), lr)
print("(%s, %s)" % (A(params[0]), A(params[1])))
r = jax.tree.map(lambda a, b: jnp.maximum(a, b), params, (jnp.ones(2), jnp.float32(-1.0)))
print("(%s, %s)" % (A(r[0]), A(r[1])))
w, b = params
print(A(w), A(b), A(predict(params, xs[:2])), A(jnp.argmax(jnp.abs(w))), A((w * 10.0).astype(jnp.int32)), A(w > 0.0))
flat = jnp.concatenate([w, jnp.expand_dims(b, 0)])
print(A(flat), flat.shape, A(jnp.sum(flat ** 2) ** 0.5))
