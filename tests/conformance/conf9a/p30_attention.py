import jax, jax.numpy as jnp, numpy as np
A = np.asarray
T = 4
d = 3
q = jnp.reshape(jnp.sin(jnp.arange(12.0)), [T, d])
k = jnp.reshape(jnp.cos(jnp.arange(12.0)), [T, d])
v = jnp.reshape(jnp.arange(12.0) / 12.0, [T, d])
scores = q @ jnp.transpose(k) / jnp.sqrt(jnp.float32(d))
mask = jnp.reshape(jnp.arange(T), [T, 1]) >= jnp.arange(T)
masked = jnp.where(mask, scores, -1e9)
w = jnp.exp(masked - jnp.max(masked, axis=-1, keepdims=True))
attn = w / jnp.sum(w, axis=-1, keepdims=True)
print(A(attn), A(attn @ v))
def layer_norm(x):
    mu = jnp.mean(x, axis=-1, keepdims=True)
    var_ = jnp.mean((x - mu) ** 2, axis=-1, keepdims=True)
    return (x - mu) / jnp.sqrt(var_ + 1e-5)
print(A(layer_norm(attn @ v)), A(layer_norm(q)[0]))
Wh = jnp.eye(3) * 0.5
Wx = jnp.ones([3, 3]) * 0.1
hs = jnp.zeros([3])
for t in range(4): hs = jnp.tanh(Wh @ hs + Wx @ q[t])
print(A(hs), A(jax.nn.relu(q - 0.5)[1]))
