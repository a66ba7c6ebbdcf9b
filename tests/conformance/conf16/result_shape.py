# JAX twin of tests/golden/result_shape.spmd (its .out is this program's output).
import jax.numpy as jnp, numpy as np
A = np.asarray
affine = lambda w, x: w @ x
outer = lambda a, b: a.reshape(-1, 1) * b
print(A(affine(jnp.ones((2, 3)), jnp.arange(3.0))), A(outer(jnp.arange(2.0), jnp.arange(3.0))), A(jnp.sum(jnp.ones(4))))
print(A(jnp.arange(6.0).reshape(-1, 2)), A(jnp.ones((2, 2)).astype(jnp.int32)))
