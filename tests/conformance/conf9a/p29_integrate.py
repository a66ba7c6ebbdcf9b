import jax, jax.numpy as jnp, numpy as np
A = np.asarray
n = 33
xs = jnp.linspace(0.0, 3.14159265, n)
ys = jnp.sin(xs)
h = xs[1] - xs[0]
trap = h * (jnp.sum(ys) - 0.5 * (ys[0] + ys[-1]))
simp = h / 3.0 * (ys[0] + ys[-1] + 4.0 * jnp.sum(ys[1:-1:2]) + 2.0 * jnp.sum(ys[2:-1:2]))
print(A(h), A(trap), A(simp), A(jnp.abs(simp - 2.0) < 1e-5))
prod_ = jnp.ones([5])
fact = jnp.float32(1.0)
for k in range(1, 11):
    fact = fact * k; prod_ = prod_ * (1.0 + 0.1 * jnp.arange(5.0))
print(A(fact), A(prod_), A(jnp.prod(jnp.arange(1.0, 11.0))), A(jnp.prod(1.0 + 0.1 * jnp.reshape(jnp.arange(10.0), [2, 5]), axis=0)))
e = jnp.exp(jnp.linspace(-2.0, 2.0, 9))
print(A(e), A(jnp.sum(e) * 0.5), A(jnp.log(e)))
g = jnp.exp(-0.5 * jnp.linspace(-4.0, 4.0, 81) ** 2) / jnp.sqrt(2.0 * 3.14159265)
print(A(jnp.sum(g) * 0.1), A(jnp.max(g)), A(g[::20]))
