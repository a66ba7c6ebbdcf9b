# JAX's twin of tests/golden/fma_sum_slice.spmd (8 host devices).
import jax, jax.numpy as jnp, numpy as np
k = jax.random.key
us = jax.random.uniform(k(11), (8 * 240,), minval=-4.0, maxval=4.0).reshape(8, 20, 12)
vs = jax.random.uniform(k(12), (8 * 240,), minval=-4.0, maxval=4.0).reshape(8, 20, 12)
print(np.asarray(jax.pmap(lambda u, v: jnp.sum(u[:, :4] * v[:, :4]))(us, vs)))
