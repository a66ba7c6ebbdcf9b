import jax, jax.numpy as jnp, numpy as np
A = np.asarray
def show(t):
    if isinstance(t, tuple):
        if len(t) == 1: return "(" + show(t[0]) + ",)"
        return "(" + ", ".join(show(e) for e in t) + ")"
    if isinstance(t, jax.Array): return str(A(t))
    return repr(t)
p = (jnp.arange(3), (jnp.float32(2.5), jnp.array([True, False])), jnp.uint32(9))
print(show(p))
print(show(p[1]), show(p[1][1]), show((jnp.arange(2.0),)), show(()))
a, (b, c), d = p
print(A(a * 2), A(b + 1.0), A(c), A(d - jnp.uint32(10)))
params = (jnp.ones([2, 2]), jnp.zeros([2]))
grads = (jnp.full([2, 2], 0.5), jnp.array([1.0, -1.0], jnp.float32))
updated = jax.tree.map(lambda w, g: w - 0.1 * g, params, grads)
print(show(updated))
print(show(jax.tree.map(lambda x: x * 2, (1.0, (jnp.arange(2), 3)))))
print(show((jnp.reshape(jnp.arange(4), [2, 2]), "text", 1e-5, -0.0, 3)))
print(show(((1, 2), [3, 4], (5,))), show((jnp.zeros([2, 3]).shape, jnp.ones([4]).size)))
