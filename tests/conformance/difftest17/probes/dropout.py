import os
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import numpy as np, jax, jax.numpy as jnp
k = jax.random.key(5)
xs = jax.random.normal(jax.random.key(6), (3, 4, 7))
def f(x):
    m = jax.random.bernoulli(jax.random.fold_in(k, jax.lax.axis_index('i')), 0.8, (4, 7))
    h = jnp.where(m, x / 0.8, 0.0)
    return jax.lax.pmean(jnp.mean(h, axis=0), 'i')
print(np.asarray(jax.pmap(f, axis_name='i')(xs)))
def g(x):
    m = jax.random.bernoulli(jax.random.fold_in(k, jax.lax.axis_index('i')), 0.5, (4, 7))
    return jax.grad(lambda z: jnp.sum(jnp.where(m, jnp.tanh(z), 0.0)))(x)
print(np.asarray(jax.pmap(g, axis_name='i')(xs)))
