# JAX twins of tests/golden/err_negative_pow.spmd and err_negative_pow_pmap.spmd: each
# prints what JAX prints, then the TypeError's text.
import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
import jax, jax.numpy as jnp, numpy as np

n = jnp.int32(jnp.argmax(jnp.array([0.0, 1.0]))) + 1
try:
    for k in range(4):
        print(np.asarray(jnp.array([4, 8], jnp.uint32) ** (n - k)))
except TypeError as e:
    print("TypeError:", e)

n = jnp.int32(jnp.argmax(jnp.array([1.0, 0.0]))) - 2
try:
    print(np.asarray(jax.pmap(lambda x: x + 2 ** n)(jnp.arange(8))))
except TypeError as e:
    print("TypeError:", e)
