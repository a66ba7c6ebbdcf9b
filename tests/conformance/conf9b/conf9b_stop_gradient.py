from conf9b_common import *
z = (jnp.sin(jnp.arange(48.0) * 1.7) * 30.0).reshape(8, 6)
def xent(z):
    def b(zz):
        mx = lax.pmax(lax.stop_gradient(jnp.max(zz)), 'i')
        lse = mx + jnp.log(lax.psum(jnp.sum(jnp.exp(zz - mx)), 'i'))
        return (lse - lax.psum(zz[1], 'i')) / 8.0
    return jnp.sum(jax.pmap(b, axis_name='i')(z))
l, g = jax.value_and_grad(xent)(z)
print(A(l))
print(A(g[3]))
sg = lax.stop_gradient
print(A(jax.grad(lambda x: x * sg(x) + sg(x ** 2))(jnp.float32(3.0))))
print(A(jax.grad(lambda w: jnp.sum(jax.vmap(lambda r: sg(jnp.tanh(r * w)) * w)(z[0])))(jnp.float32(0.2))))
print(A(sg(jnp.arange(3))), A(sg(z[0, :2])))
v, gx = jax.value_and_grad(lambda x: jnp.sum(sg(jnp.exp(x)) * x))(jnp.array([0.5, -1.0]))
print(A(v), A(gx))
