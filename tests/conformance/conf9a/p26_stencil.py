import jax, jax.numpy as jnp, numpy as np
A = np.asarray
u = jnp.where(jnp.abs(jnp.linspace(-1.0, 1.0, 11)) < 0.3, 1.0, 0.0)
for t in range(10):
    padded = jnp.concatenate([u[:1], u, u[-1:]])
    u = u + 0.25 * (padded[:-2] - 2.0 * u + padded[2:])
print(A(u), A(jnp.sum(u)))
img = jnp.reshape((jnp.arange(36) % 7).astype(jnp.float32), [6, 6])
blur = (img[:-2, :-2] + img[:-2, 1:-1] + img[:-2, 2:] + img[1:-1, :-2] + img[1:-1, 1:-1]
  + img[1:-1, 2:] + img[2:, :-2] + img[2:, 1:-1] + img[2:, 2:]) / 9.0
print(A(blur))
pooled = jnp.max(jnp.reshape(img, [3, 2, 3, 2]), axis=(1, 3))
print(A(pooled), A(jnp.mean(jnp.reshape(img, [3, 2, 3, 2]), axis=(1, 3))))
gx = img[:, 2:] - img[:, :-2]
gy = img[2:, :] - img[:-2, :]
print(A(jnp.sqrt((gx[1:-1] ** 2 + gy[:, 1:-1] ** 2).astype(jnp.float32))[0]), A(jnp.argmax(gx, axis=1)))
