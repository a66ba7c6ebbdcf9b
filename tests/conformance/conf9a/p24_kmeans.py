import jax, jax.numpy as jnp, numpy as np
A = np.asarray
pts = jnp.reshape(jnp.array([0.0, 0.1, 0.2, 5.0, 5.1, 4.9, 9.0, 9.5, 10.0, 0.15, 5.05, 9.9], jnp.float32), [6, 2])
cent = pts[:3]
for it in range(5):
    d = jnp.sum((jnp.expand_dims(pts, 1) - jnp.expand_dims(cent, 0)) ** 2, axis=-1)
    lab = jnp.argmin(d, axis=1)
    oh = jax.nn.one_hot(lab, 3)
    cnt = jnp.sum(oh, axis=0)
    cent = jnp.transpose(oh) @ pts / jnp.maximum(jnp.expand_dims(cnt, 1), 1.0)
d = jnp.sum((jnp.expand_dims(pts, 1) - jnp.expand_dims(cent, 0)) ** 2, axis=-1)
print(A(cent), A(jnp.argmin(d, axis=1)), A(jnp.min(d, axis=1)), A(jnp.sum(jnp.min(d, axis=1))))
v = jnp.array([1.0, 1.2, 0.8, 7.0, 7.5, 6.5, 7.0], jnp.float32)
c2 = jnp.array([0.0, 10.0], jnp.float32)
lab2 = jnp.argmin(jnp.abs(jnp.expand_dims(v, 1) - c2), axis=1)
print(A(lab2), A(jnp.sum(jax.nn.one_hot(lab2, 2), axis=0)), A(jnp.sum(v * (lab2 == 1)) / jnp.sum(lab2 == 1)))
