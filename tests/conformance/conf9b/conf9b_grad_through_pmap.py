from conf9b_common import *
x = (jnp.arange(24.0) / 12.0 - 1.0).reshape(8, 3)
w = jnp.array([0.4, -0.3, 0.9])
def loss(w, x):
    def body(r):
        z = jnp.tanh(jnp.dot(r, w))
        s = lax.psum(z, 'i')
        return (z - s / 8.0) ** 2
    return jnp.sum(jax.pmap(body, axis_name='i')(x))
l, gw = jax.value_and_grad(loss)(w, x)
print(A(l), A(gw))
gx = jax.grad(loss, argnums=1)(w, x)
print(A(gx[2]), A(gx[7]))
l2, (gw2, gx2) = jax.value_and_grad(loss, argnums=(0, 1))(w, x)
print(A(l2 == l), A(jnp.all(gw2 == gw)), A(jnp.all(gx2 == gx)))
loss2 = lambda s: jnp.sum(jax.pmap(lambda r: lax.pmean(jnp.sum(r * s) ** 2, 'i') + lax.pmax(lax.stop_gradient(r[0] * s), 'i'), axis_name='i')(x))
print(T(jax.value_and_grad(loss2)(1.5)))
