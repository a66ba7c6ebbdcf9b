# The sign of zero through JAX indexing of a pmap result (see README.md).
import jax, jax.numpy as jnp, numpy as np
A = np.asarray; lax = jax.lax
x = jnp.arange(64.0).reshape(8, 8)
m = jax.pmap(lambda row: lax.pmax(row * -1.0, 'i'), axis_name='i')(x)
print("pmap out np-index", A(m)[3, :2], "jax index", A(m[3])[:2], "jax slice", A(m[3:4])[0, :2], type(m.sharding).__name__)
y = jnp.array([[-0.0, -1.0], [-0.0, 2.0]])
print("plain jax index", A(y[1]), A(y[1, 0]), A(y[:, 0]))
m2 = jax.pmap(lambda r: r * -1.0)(jnp.arange(4.0))
print("pmap mul", A(m2), "index", A(m2[0]), A(m2[:2]))
m3 = jax.pmap(lambda r: r)(jnp.array([-0.0, 1.0]))
print("pmap id", A(m3), A(m3[0]))
