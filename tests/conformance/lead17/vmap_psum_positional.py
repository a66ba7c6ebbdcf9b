# JAX's twin of tests/golden/vmap_psum_positional.spmd; its output is that golden's .out:
#   XLA_FLAGS=--xla_force_host_platform_device_count=8 JAX_PLATFORMS=cpu \
#     /tmp/jaxenv/bin/python tests/conformance/lead17/vmap_psum_positional.py
import jax
import jax.numpy as jnp

ps, pmax, pmin = jax.lax.psum, jax.lax.pmax, jax.lax.pmin
vmap, pmap = jax.vmap, jax.pmap
v0 = jnp.array([0.2960219979286194, 0.1789037585258484, -33822299127808.0,
                -4.197000026702881, 1.6699999570846558, 1.0, -4.0, 0.9681519865989685,
                -3.6600000858306885, 1.600000023841858, -2.75, 2.200000047683716, 100.0,
                -2.700000047683716, 2.0, -2.428999900817871, -1.600000023841858,
                -1.909999966621399], jnp.float32).reshape(3, 3, 2)
print(vmap(vmap(lambda x: ps(x, ('a', 'b')), axis_name='b'), axis_name='a')(v0)[0, 0])
print(vmap(vmap(lambda x: ps(x, ('a', 'b')), axis_name='a'), axis_name='b')(v0)[0, 0])
print(vmap(vmap(vmap(lambda x: ps(x, ('a', 'b')), axis_name='b'), axis_name='c'),
           axis_name='a')(v0))
u = (jnp.arange(48.0, dtype=jnp.float32) * 0.37).reshape(2, 3, 4, 2)
print(pmap(vmap(vmap(lambda x: ps(x, ('a', 'i', 'b')), axis_name='b'), axis_name='a'),
           axis_name='i')(u))
xs = jnp.array([0.1, 0.7, 0.3, 1.9, 2.2, 0.45, 3.3, 0.01], jnp.float32)
print(pmap(lambda x: vmap(lambda t: ps(x * 1.1, ('b', 'i')), axis_name='b')(jnp.arange(3)),
           axis_name='i')(xs))
print(vmap(lambda t: vmap(lambda x: ps(v0[1, 0] * 1.1, ('a', 'b')) + x, axis_name='b')(v0[0]),
           axis_name='a')(jnp.arange(2)))
print(pmap(lambda x: vmap(lambda t: pmax(x * 1.1, ('b', 'i')) + pmin(x, ('i', 'b')),
                          axis_name='b')(jnp.arange(3)), axis_name='i')(xs))
