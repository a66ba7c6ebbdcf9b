import jax, jax.numpy as jnp, numpy as np
A = np.asarray
x = [-1000.0, -88.0, -20.0, -1e-8, 0.0, 1e-8, 20.0, 88.0, 89.0, 1000.0]
v = jnp.array(x, jnp.float32)
print(A(jnp.exp(v)))
print(A(jnp.tanh(v)), A(jax.nn.sigmoid(v)))
print(A(jnp.log(jnp.abs(v))), A(jnp.log1p(v / 1000.0)), A(jnp.sqrt(jnp.abs(v))), A(jax.lax.rsqrt(jnp.abs(v))))
s = jnp.array([0.0, -0.0], jnp.float32) / 0.0
print(A(jnp.exp(s)), A(jnp.log(-1.0 + jnp.zeros([1]))), A(jnp.sqrt(-v[:2])), A(jnp.tanh(v / 0.0)))
print(A(jax.nn.sigmoid(jnp.array([-100.0, -30.0, 30.0, 100.0], jnp.float32))), A(jnp.log(jax.nn.sigmoid(jnp.array([-100.0, 100.0], jnp.float32)))))
print(A(jax.nn.relu(v)), A(jax.nn.relu(-0.0 + jnp.zeros([1]))), A(jax.nn.relu(jnp.array([-3, 3], jnp.int32))), A(jnp.maximum(s, 1.0)), A(jnp.minimum(1.0, s)))
print(A(jnp.exp(88.72283)), A(jnp.exp(88.72284)), A(jnp.log(1e-45)), A(jnp.log(3.4028235e38)), A(jnp.sin(1e30)), A(jnp.cos(-1e30)))
print(A(jnp.log1p(-1.0)), A(jnp.log1p(-0.9999999)), A(jnp.log1p(1e-30)), A(jnp.exp(-87.33655)), A(jnp.exp(-103.97)))
print(A(jnp.clip(v, -50.0, 50.0)), A(jnp.clip(s, 0.0, 1.0)), A(jnp.clip(jnp.array([-5, 5, 50], jnp.int32), 0, 10)))
