import jax, jax.numpy as jnp, numpy as np
A = np.asarray
h = jnp.arange(-6, 7) * 0.5
print(A(h))
print(A(jnp.round(h)), A(jnp.floor(h)), A(jnp.ceil(h)))
print(A(jnp.round(h + 0.001)), A(jnp.round(h - 0.001)), A(jnp.round(h).astype(jnp.int32)), A(jnp.floor(h).astype(jnp.int32)))
big = jnp.array([8388607.5, 8388608.5, -8388607.5, 16777215.0, 1e20, -0.4, -0.5], jnp.float32)
print(A(jnp.round(big)), A(jnp.floor(big)), A(jnp.ceil(big)))
print(A(jnp.round(2.5)), A(jnp.round(-3.5)), A(jnp.floor(-0.0)), A(jnp.ceil(-0.3)), A(jnp.round(0.49999997)))
print(A(jnp.round(jnp.arange(5))), A(jnp.floor(jnp.array([3], jnp.uint32))), A(jnp.ceil(jnp.array([-3], jnp.int32))))
print(A(jnp.abs(h)), A(jnp.sign(h)), A(jnp.sign(-0.0)), A(jnp.sign(jnp.array([-3, 0, 3], jnp.int32))), A(jnp.abs(jnp.array([-2147483648], jnp.int32))))
money = jnp.array([19.995, 2.675, 1.005, 0.125], jnp.float32)
print(A(jnp.round(money * 100.0) / 100.0), A(jnp.floor(money * 100.0 + 0.5)))
