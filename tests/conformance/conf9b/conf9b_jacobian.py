from conf9b_common import *
f = lambda x: jnp.stack([jnp.sin(x[0]) * x[1], x[0] ** 2 + jnp.exp(x[2]), jnp.tanh(x[1] * x[2]), x[0] * x[1] * x[2]])
x0 = jnp.array([0.5, -1.2, 0.8])
jac = jax.vmap(lambda e: jax.grad(lambda x: jnp.sum(f(x) * e))(x0))(jnp.eye(4))
print(A(jac))
jp = pm(lambda e: jax.grad(lambda x: jnp.sum(f(x) * e))(x0), jnp.eye(8)[:4, :4])
print(A(jp == jac))
print(A(jac @ jnp.array([1.0, 0.0, -1.0])))
def h(p):
    a, b = p
    return jnp.sum(jax.pmap(lambda r: jnp.sin(r * a) * b + lax.psum(r * b, 'i'), axis_name='i')((jnp.arange(16.0) / 8.0).reshape(8, 2)))
ga, gb = jax.grad(h)((jnp.float32(0.7), jnp.float32(-0.3)))
print(A(ga), A(gb))
v, g = jax.value_and_grad(h)((jnp.float32(1.0), jnp.float32(2.0)))
print("(" + str(A(v)) + ", " + T(g) + ")")
