from conf9b_common import *
k0 = R.split(R.key(3), 2)
pts = R.normal(k0[0], (8, 10, 2)) + (jax.nn.one_hot(jnp.arange(80) % 3, 2) * 3.0).reshape(8, 10, 2)
c0 = jnp.array([[0.0, 0.0], [1.0, 1.0], [-1.0, 2.0]])
def body(p):
    def it(t, st):
        c, cnt, j = st
        d = jax.vmap(lambda q: jnp.sum((q - c) ** 2, axis=1))(p)
        a = jnp.argmin(d, axis=1)
        oh = jax.nn.one_hot(a, 3)
        s = lax.psum(oh.T @ p, 'i')
        cnt = lax.psum(jnp.sum(oh.astype(jnp.int32), axis=0), 'i')
        c = s / jnp.expand_dims(jnp.maximum(cnt.astype(jnp.float32), 1.0), 1)
        j = lax.psum(jnp.sum(jnp.min(d, axis=1)), 'i')
        return c, cnt, j
    return fori(4, it, (c0, jnp.zeros(3, jnp.int32), jnp.float32(0.0)))
cs, counts, inertia = pm(body, pts)
print(A(cs[0]))
print(A(counts[4]), A(inertia[2]))
