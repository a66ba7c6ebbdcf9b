import jax, jax.numpy as jnp, numpy as np
A = np.asarray; a_ = jnp.array
imgs = jnp.arange(2 * 4 * 4 * 3).reshape(2, 4, 4, 3) % 17
nchw = jnp.transpose(imgs, (0, 3, 1, 2))
print(nchw.shape, A(nchw[1, 2]))
patches = jnp.transpose(imgs.reshape(2, 2, 2, 2, 2, 3), (0, 1, 3, 2, 4, 5))
print(patches.shape, A(patches.reshape(2, 4, -1)[0, :, :5]))
print(A(jnp.sum(imgs, axis=(1, 2))), A(jnp.max(imgs, axis=(0, 3), keepdims=True)[0, :, :, 0]))
print(A(jnp.mean(imgs.astype(jnp.float32), axis=(1, 2, 3))), A(jnp.argmax(imgs.reshape(2, -1), axis=1)), A(jnp.min(imgs, axis=-1)[1, 0]))
flat = jnp.ravel(imgs[0, 0])
print(A(flat), A(jnp.concatenate([flat[:3], flat[-3:]], axis=-1)), A(jnp.stack([flat[:3], flat[3:6]], axis=-1)))
e = jnp.expand_dims(jnp.expand_dims(flat[:4], 0), -1)
print(e.shape, A(jnp.squeeze(e)), A(jnp.squeeze(e, 0)), jnp.squeeze(e, -1).shape, A(jnp.broadcast_to(e, (2, 4, 3))[1, :, 2]))
print(A(jnp.transpose(nchw)[0, 0]), jnp.transpose(nchw).shape, len(nchw), nchw.size, nchw[:, :, 1:3, ::2].shape)
rows = [imgs[0, k, k] for k in range(4)]
print(A(jnp.stack(rows)), A(jnp.concatenate(rows)), A(jnp.stack(rows, axis=1)[2]))
print(A(jnp.all(jnp.transpose(jnp.arange(24).reshape(2, 3, 4), (2, 0, 1)).reshape(4, 6)[1] == jnp.arange(24)[1::4])))
print(A(jnp.dot(nchw[0, 0].astype(jnp.float32), nchw[0, 1].astype(jnp.float32))[0]), A(imgs[0, 0].astype(jnp.int32) @ a_([1, 10, 100])), A(jnp.eye(3)[::-1] @ flat[:3].astype(jnp.float32)))
print(A(jnp.any(imgs == 16, axis=(1, 2, 3), keepdims=True)), A(jnp.sum(imgs > 8, axis=(-1, -2))[1]))
