from common import *
from jax import lax
x = jnp.arange(6.0).reshape(2, 3)
P(jnp.zeros([2], dtype=jnp.int32), jnp.ones(shape=[2]), jnp.full([2], 3, dtype=jnp.float32), jnp.full(shape=[1], fill_value=2.0), jnp.arange(start=1, stop=4), jnp.arange(0, 5, step=2))
P(jnp.linspace(0.0, 1.0, num=3), jnp.eye(2, M=3), jnp.eye(N=2), jnp.reshape(x, shape=[3, 2]), jnp.transpose(x, axes=[1, 0]), jnp.concatenate([x, x], axis=-1), jnp.stack([x, x], axis=2))
P(jnp.squeeze(jnp.expand_dims(x, axis=0), axis=0), jnp.broadcast_to(x[0], shape=[2, 3]), jnp.sum(x, axis=0, keepdims=True), jnp.argmax(x, axis=1, keepdims=True), jax.nn.logsumexp(x, axis=(0, 1)))
P(jnp.clip(x, min=1.0, max=4.0), jnp.where(x > 2.0, x, 0.0), jnp.maximum(x, 2.0), jax.nn.one_hot(jnp.array([1, 0]), num_classes=3), jnp.all(jr.key_data(jr.split(jr.key(0), num=3)[2]) == jr.key_data(jr.split(jr.key(0), 3)[2])))
P(jr.uniform(jr.key(1), shape=[2], minval=2.0, maxval=3.0), jr.normal(jr.key(2), shape=[2]), jr.randint(jr.key(3), shape=[3], minval=0, maxval=5), jr.bernoulli(jr.key(4), p=0.5, shape=[3]))
pm = lambda f: jax.pmap(f, axis_name='i')
P(pm(lambda r: lax.all_gather(r, axis_name='i', tiled=True))(jnp.arange(16).reshape(8, 2))[0], pm(lambda r: lax.all_to_all(r, 'i', split_axis=0, concat_axis=0))(jnp.arange(64).reshape(8, 8))[1])
P(pm(lambda r: lax.psum_scatter(r, axis_name='i', scatter_dimension=0))(jnp.arange(64).reshape(8, 8)), pm(lambda r: lax.ppermute(r, 'i', perm=[(0, 1), (1, 0)]))(jnp.arange(8)), pm(lambda r: lax.psum(r, axis_name='i'))(jnp.arange(8.0)))
P(jax.grad(lambda a, b: jnp.sum(a * b), argnums=1)(x, x), jax.value_and_grad(lambda a: jnp.sum(a), argnums=(0,))(x))
