import jax, jax.numpy as jnp, numpy as np
A = np.asarray; a_ = jnp.array; lax = jax.lax
x = jnp.arange(60.0).reshape(3, 4, 5)
print(A(x[-1, ::2, 1:4]), A(x[1][-2][::-2]))
print(A(x[:, 0, -1]), A(x[::-1, -1, ::3]), A(x[2, 1:3][:, 4]))
print(A(x[0, 3:1]), A(x[5:, 0]), x[:, :0, 1:].shape, A(x[1, -4:-2, -5:-3]))
v = jnp.arange(10) * 3
acc = 0
for t in range(5): acc = acc + v[t * 2] - v[-1 - t]
print(A(acc))
w = jnp.zeros(5)
for t in range(5): w = w.at[4 - t].set(t * 1.5 + w[(t + 4) % 5])
print(A(w))
m = jnp.arange(12).reshape(3, 4)
print(A(m.at[1, 2].set(-1)), A(m.at[0].set(a_([9, 8, 7, 6]))), A(m.at[-1].set(0)))
idx = jnp.sum(jnp.ones(2)).astype(jnp.int32)
print(A(m[idx]), A(m[idx - 3]), A(m[1, idx]), A(m.at[idx, idx + 1].set(100)))
print(A(jax.vmap(lambda r, j: r[j] + r[-1])(m, a_([3, 0, 2]))))
print(A(jax.vmap(lambda r: r.at[jnp.argmax(r * 0 - r)].set(50))(m)))
print(A(jax.pmap(lambda r: r[lax.axis_index('i')] * 10 + r[1:3], axis_name='i')(m)))
print(A(jax.pmap(lambda r: r[::-1] - r[lax.axis_index('i') % 2], axis_name='i')(jnp.arange(8.0).reshape(4, 2))))
print(A(jnp.concatenate([m[0], m[2, ::-1]])), A(jnp.stack([m[:, 1], m[:, 3]], axis=1)))
print(A(jnp.transpose(x[:2, :2, :2], (2, 0, 1))), A(jnp.expand_dims(m[0], 1)[2:]), A(jnp.squeeze(x[:1, 2:3, 4])))
print(A(m.reshape(2, -1)[1, ::-3]), A(jnp.ravel(m[::2, ::3])), A(jnp.broadcast_to(m[1, :2], (2, 2))))
print(A(jax.grad(lambda a: jnp.sum(a[1:3] * a[::-1][:2]) + a[0] * a[-1])(jnp.arange(5.0))))
print(A(jax.grad(lambda a: jnp.sum(a.at[2].set(a[0] * 3.0) ** 2))(jnp.arange(4.0))))
