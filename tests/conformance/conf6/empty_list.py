import jax, jax.numpy as jnp, numpy as np
A=np.asarray; a=jnp.array
e = a([])
print(e.shape, A(e + 1.0), A(jnp.sum(e)), A(jnp.mean(e)), e.size)
print(A(jnp.concatenate([e, a([1.0, 2.0])])), A(e * 2), A(e.astype(jnp.int32)), A(a([]).astype(jnp.uint32) + 1), jnp.stack([a([]), a([])]).shape)
print(a([[], []]).shape, A(jnp.sum(a([[], []]), axis=1)), A(jnp.prod(a([[], [], []]), axis=1)), A(jnp.any(e)), A(jnp.all(e)))
print(A(jax.vmap(lambda x: x * 2.0)(a([]))), A(e.reshape(0, 3)), A(jnp.where(e > 0.0, e, 1.0)))
