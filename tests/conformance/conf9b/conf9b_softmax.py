from conf9b_common import *
logits = (jnp.sin(jnp.arange(48.0) * 1.7) * 30.0).reshape(8, 6)
target = 19
def body(z):
    mx = lax.pmax(jnp.max(z), 'i')
    e = jnp.exp(z - mx)
    s = lax.psum(jnp.sum(e), 'i')
    return e / s, mx + jnp.log(s), lax.pmax(jnp.max(z), 'i') - lax.pmin(jnp.min(z), 'i')
p, lse, spread = pm(body, logits)
print(A(p[3]))
print(A(jnp.sum(p)), A(lse[0]), A(spread[5]))
print(A(p.ravel() == jnp.exp(logits.ravel() - jax.nn.logsumexp(logits.ravel()))))
def xent(z):
    def b(zz):
        mx = lax.pmax(lax.stop_gradient(jnp.max(zz)), 'i')
        lse = mx + jnp.log(lax.psum(jnp.sum(jnp.exp(zz - mx)), 'i'))
        own = jnp.where(lax.axis_index('i') * 6 + jnp.arange(6) == target, zz, 0.0)
        return (lse - lax.psum(jnp.sum(own), 'i')) / 8.0
    return jnp.sum(jax.pmap(b, axis_name='i')(z))
l, g = jax.value_and_grad(xent)(logits)
print(A(l))
print(A(g[3]))
print(A(g[0]))
