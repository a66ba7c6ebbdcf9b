from conf9b_common import *
x = (jnp.exp(jnp.sin(jnp.arange(120.0))) * 2.0 - 1.0).reshape(8, 5, 3)
def bn(h, gamma, beta):
    mu = lax.pmean(jnp.mean(h, axis=0), 'i')
    var_ = lax.pmean(jnp.mean((h - mu) ** 2, axis=0), 'i')
    return gamma * (h - mu) / jnp.sqrt(var_ + 1e-5) + beta
gamma = jnp.array([1.0, 0.5, 2.0]); beta = jnp.array([0.0, 0.1, -0.2])
y = pm(lambda h: bn(h, gamma, beta), x)
print(A(y[2]))
print(A(jnp.mean(y, axis=(0, 1))))
flat = x.reshape(40, 3)
mu = jnp.mean(flat, axis=0)
ref = gamma * (flat - mu) / jnp.sqrt(jnp.mean((flat - mu) ** 2, axis=0) + 1e-5) + beta
print(A(jnp.max(jnp.abs(y.reshape(40, 3) - ref)) < 1e-5))
loss = lambda p: jnp.sum(jax.pmap(lambda h: jnp.sum(bn(h, p[0], p[1]) ** 3) / 40.0, axis_name='i')(x))
gg, gb = jax.grad(loss)((gamma, beta))
print(A(gg), A(gb))
