from r14_common import *
a = jnp.arange(-12, 12).reshape(4, 6)
d = jnp.array([-3, -1, 2, 5], jnp.int32)
print(T(jax.vmap(lambda r, q: (r // q, r % q, -r // q))(a, d)))
print(A(jax.vmap(jax.vmap(lambda v: v * v * v * 1000 // 7))(a)))
print(A(jax.vmap(lambda r: r.astype(jnp.int32))(a.astype(jnp.float32) * 1e9)), A(jax.vmap(lambda r: jnp.sum(r * 357913942))(a)))
