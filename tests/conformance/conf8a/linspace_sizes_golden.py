import jax, jax.numpy as jnp, numpy as np
A = np.asarray
a = jnp.linspace(62.654049, 82.55112, 5)
b = jnp.linspace(-3.0, 0.25, 50)
print(A(a), A(b[::7]))
c = jnp.linspace(-3.0, 0.25, 400)
print(A(c[40:46]), A(c[384:390]), A(c[396:]))
d = jnp.linspace(-1.0, 1.0, 1500, endpoint=False)
print(A(d[595:601]), A(d[1490:]))
e = jnp.linspace(-3.0, 0.25, 5000)
f = jnp.linspace(-3.0, 0.25, 5001)
print(A(e[1:4]), A(e[4990:]), A(f[1:4]), A(f[4990:]))
print(A(jnp.sum(jnp.linspace(0.1, 0.7, 2000) == jnp.linspace(0.1, 0.7, 2000)[::-1][::-1])), A(c[-1]), A(d[0]))
