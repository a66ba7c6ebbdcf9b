from conf9c_common import *
keep = 0.8
x = jnp.sin(jnp.arange(96.0)).reshape(8, 3, 4)
def dropout(k, h, p): return jnp.where(R.bernoulli(k, p, h.shape), h / p, 0.0)
for step in range(2):
    k = R.fold_in(R.key(11), step)
    def body(xs):
        kd = R.fold_in(k, lax.axis_index('i'))
        h = jax.nn.relu(xs * 2.0 - 0.5)
        d = jax.vmap(lambda kk, row: dropout(kk, row, keep))(R.split(kd, 3), h)
        return jnp.sum(d), jnp.sum((d != 0.0).astype(jnp.float32))
    out = pm(body, x)
    print("step", step, A(out[0]), A(out[1]))
masks = pm(lambda k: R.bernoulli(k, 0.5, (16,)), R.split(R.key(3), 8))
print(A(masks[2]))
print(A(jnp.sum(masks.astype(jnp.int32), axis=1)))
print(A(pm(lambda k: R.bernoulli(k, lax.axis_index('i').astype(jnp.float32) / 8.0, (6,)), R.split(R.key(4), 8))))
print(A(pm(lambda k: R.bernoulli(k, jnp.linspace(0.0, 1.0, 5)), R.split(R.key(5), 8))))
