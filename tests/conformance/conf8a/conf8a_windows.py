import jax, jax.numpy as jnp, numpy as np
A = np.asarray; a_ = jnp.array
sig = a_([3.0, -1.0, 4.0, 1.0, -5.0, 9.0, 2.0, -6.0, 5.0, 3.0])
n = len(sig)
win = jnp.stack([sig[k:k + 3] for k in range(n - 2)])
print(A(win), win.shape)
print(A(jnp.mean(win, axis=1)), A(jnp.max(win, axis=-1)), A(jnp.argmax(win, axis=1)), A(win[::-3, ::2]))
pre = jnp.zeros(n + 1)
for k in range(n): pre = pre.at[k + 1].set(pre[k] + sig[k])
print(A(pre), A(pre[3:] - pre[:-3]))
ring = jnp.zeros(4, jnp.int32)
head = 0
for k in range(n):
    pos = jnp.int32(k) % 4
    ring = ring.at[pos].set(sig[k].astype(jnp.int32))
    head = (head + 1) % 4
print(A(ring), head, A(ring[::-1]), A(ring[-1:-5:-1]), A(ring[1:-1]))
m = jnp.arange(12).reshape(3, 4)
idx = jnp.argmax(m.astype(jnp.float32) * a_([1.0, -1.0, 0.5, 2.0]), axis=1)
print(A(idx), A(jax.vmap(lambda r, j: r[j])(m, idx)), A(jax.vmap(lambda r: r[-1] - r[0])(m)))
grid = jnp.zeros((3, 3), bool)
for k in range(3): grid = grid.at[k, 2 - k].set(True)
print(A(grid), A(grid[:, ::-1]), A(jnp.sum(grid, axis=0)), A(grid.astype(jnp.int32)[1]))
t = jnp.sum((m > 5).astype(jnp.int32))
print(A(m[t - 6]), A(m[-t + 5, t - 4]), A(m.at[t - 5, -1].set(-1)[1]))
print(A(sig[::-1][:3]), A(sig[n - 1]), A(sig[-n]), A(sig[2:-2:3]), A(sig[8:100]), A(sig[-100:2]))
