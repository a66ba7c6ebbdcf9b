# JAX twin of exp_xla.spmd (expected output: XLA_FLAGS=--xla_force_host_platform_device_count=8
# python exp_xla.py > exp_xla.out, JAX 0.10.2 on the CPU, x64 off).
import jax
import jax.numpy as jnp
import numpy as np

f32 = jnp.float32
x = jnp.array([29.58105, 44.342476, -30.036226, 59.95519, -29.613102, -61.067936, -59.291145, -61.112057], f32)
print(np.asarray(jnp.exp(x)), np.asarray(jnp.exp(f32(88.72283))), np.asarray(jnp.exp(f32(88.72))),
      np.asarray(jnp.exp(f32(88.687386))))
print(np.asarray(jnp.exp(jnp.array([0.0, -0.0, 1.0, -87.3, -87.5, -88.0, -104.0, 88.8, 89.0], f32))),
      np.asarray(jnp.exp(jnp.array([1.0, -1.0], f32) / 0.0)))
s = jnp.array([-29.642366, -45.77291, -29.940502, -30.041935, -60.26774, -30.451342, -59.94395, -60.26774], f32)
sig = jax.nn.sigmoid
print(np.asarray(sig(s)), np.asarray(sig(f32(-88.0))), np.asarray(sig(f32(-87.0))), np.asarray(sig(f32(2.5))))
xs = jnp.concatenate([x, s]).reshape(2, 8)
print(np.asarray(jax.pmap(lambda r: jnp.exp(r) + sig(r))(xs)))
print(np.asarray(jax.pmap(jnp.exp)(xs)), np.asarray(jax.pmap(sig)(s.reshape(1, 8))))
print(np.asarray(jax.grad(lambda t: jnp.sum(jnp.exp(t)))(jnp.array([29.58105, -30.036226], f32))))
