from common import *
from jax import lax
from jax.sharding import PartitionSpec as PS, NamedSharding, Mesh
pm = lambda f, a='i': jax.pmap(f, axis_name=a)
vm = lambda f, a='j', **kw: jax.vmap(f, axis_name=a, **kw)
x = jnp.arange(30.0).reshape(3, 5, 2) * 0.1
P(pm(vm(lambda v: lax.psum(v, ('i', 'j'))))(x))
P(pm(vm(lambda v: (lax.pmean(v, 'j'), lax.pmax(v, 'i'), lax.axis_index(('i', 'j')))))(x))
P(pm(vm(lambda v: lax.all_gather(v[0], 'j')))(x)[1, 2])
P(vm(pm(lambda v: v - lax.pmean(v, 'i') + lax.psum(v, ('j', 'i'))))(jnp.arange(15.0).reshape(5, 3)))
P(pm(vm(lambda v: lax.ppermute(v, 'j', [(k, (k + 2) % 5) for k in range(5)])))(x))
m = jnp.arange(36.0).reshape(6, 6) * 0.05
mesh = Mesh(np.array(jax.devices()[:6]).reshape(3, 2), ("rows", "cols"))
sm = lambda f, a, i, o: jax.jit(jax.shard_map(f, mesh=mesh, in_specs=i, out_specs=o))(a)
P(sm(lambda a: a - lax.pmean(a, 'cols'), m, PS('rows', 'cols'), PS('rows', 'cols')))
P(sm(lambda a: lax.psum(jnp.sum(a, axis=1), 'rows') * 0.0 + jnp.sum(a, axis=1), m, PS('rows', None), PS('rows')))
P(sm(lambda a: a * lax.axis_index('rows').astype(jnp.float32), m, PS(('rows', 'cols'), None), PS(('rows', 'cols'), None)))
w = jnp.arange(6.0).reshape(2, 3) * 0.2
P(jax.grad(lambda w: jnp.sum(jax.vmap(lambda c: jnp.tanh(c * c), in_axes=1)(w)))(w))
P(jax.grad(lambda w: jnp.sum(jax.vmap(lambda c: jnp.exp(c) * c[0], in_axes=1, out_axes=0)(w)))(w))
P(jax.vmap(lambda c: jax.grad(lambda q: jnp.sum(jnp.sin(q) * q))(c), in_axes=1)(w))
P(jax.grad(lambda z: jnp.sum(pm(vm(lambda v: lax.psum(v * v, ('i', 'j'))))(z)))(x))
