import jax, jax.numpy as jnp, numpy as np
A = np.asarray
data = jnp.array([0.1, 0.5, 0.55, 1.2, 2.9, 3.0, 3.5, 0.0, 2.2, 1.9, 4.0, -0.3], jnp.float32)
edges = jnp.linspace(0.0, 4.0, 5)
idx = jnp.floor(data).astype(jnp.int32)
print(A(idx), A(jnp.clip(idx, 0, 3)))
counts = jnp.sum(jax.nn.one_hot(jnp.clip(idx, 0, 3), 4), axis=0)
print(A(counts), A(counts.astype(jnp.int32)), A(jnp.sum(counts)))
below = jnp.sum(jnp.expand_dims(data, 1) < edges, axis=0)
print(A(below), A(below[1:] - below[:-1]))
cum = jnp.zeros([4])
run = jnp.float32(0.0)
for k in range(4):
    run = run + counts[k]; cum = cum.at[k].set(run)
print(A(cum), A(cum / cum[-1]))
ints = jnp.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5])
bc = jnp.sum(jax.nn.one_hot(ints, 10), axis=0)
print(A(bc.astype(jnp.int32)), A(jnp.argmax(bc)), A(jnp.max(ints.astype(jnp.int32))), A(jnp.sum(ints.astype(jnp.int32) == 5)))
