# JAX's twin of tests/golden/vmap_pmean_eager.spmd; its output is that golden's .out:
#   XLA_FLAGS=--xla_force_host_platform_device_count=8 JAX_PLATFORMS=cpu \
#     /tmp/jaxenv/bin/python tests/conformance/lead17/vmap_pmean_eager.py
import jax
import jax.numpy as jnp

pm = jax.lax.pmean
vmap, pmap = jax.vmap, jax.pmap
v = jnp.array([0.3, 1.7, 2.9, 0.11, 5.5, 7.1], jnp.float32).reshape(2, 3) * 1.0
print(vmap(vmap(lambda x: pm(x * 1.3, ('a', 'b')), axis_name='b'), axis_name='a')(v))
print(vmap(lambda w: pm(w * 1.3, 'a'), axis_name='a')(v))
print(vmap(lambda x: pm(x * 0.1548, 'b'), axis_name='b')(v[0]))
xs = jnp.array([0.1, 0.7, 0.3, 1.9, 2.2, 0.45, 3.3, 0.01], jnp.float32)
print(pmap(lambda x: vmap(lambda t: pm(x * 1.1, ('b', 'i')), axis_name='b')(jnp.arange(3)),
           axis_name='i')(xs))
print(pmap(lambda x: pm(x * 0.1548, 'i'), axis_name='i')(xs))
