# JAX twin of tests/golden/jnp_keyword_names.spmd (run from this folder).
import sys; sys.path.insert(0, 'probes')
from common import *
P(jnp.full([2], fill_value=2.5), jnp.full(shape=[1, 2], fill_value=True), jnp.full([2], fill_value=3, dtype=jnp.float32))
P(jnp.eye(N=2), jnp.eye(2, M=3), jnp.eye(N=3, M=2, k=-1, dtype=jnp.int32))
P(jax.nn.one_hot(jnp.array([1, 0, 3]), num_classes=3), jax.nn.one_hot(jnp.array([2]), num_classes=4, dtype=bool))
