from conf9c_common import *
k = R.key(4)
U = lambda kk, s, lo, hi: R.uniform(kk, s, minval=lo, maxval=hi)
print(A(jax.grad(lambda lo: jnp.sum(U(k, (4,), lo, 2.0) ** 2))(-1.0)))
print(T(jax.grad(lambda lo, hi: jnp.sum(U(k, (4,), lo, hi) ** 2), argnums=(0, 1))(-1.0, 2.0)))
def body(kk):
    f = lambda c, w: jnp.mean(jnp.sin(U(kk, (16,), c - w, c + w)))
    v, (gc, gw) = jax.value_and_grad(f, argnums=(0, 1))(0.5, 1.5)
    return v, gc, gw
r = pm(body, R.split(k, 8))
print(A(r[0]))
print(A(r[1]))
