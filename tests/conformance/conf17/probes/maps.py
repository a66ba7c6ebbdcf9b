from common import *
from jax import lax
v = jax.vmap
m = jnp.arange(12.0).reshape(3, 4)
P(v(lambda r: r * jnp.sum(r))(m), v(lambda c: c - jnp.mean(c), in_axes=1)(m).T if False else v(lambda c: c - jnp.mean(c), in_axes=1)(m), v(lambda r: r * 2.0, out_axes=1)(m))
P(v(lambda r, s: r[s])(m, jnp.arange(3)), v(lambda a, b: a @ b)(m, m * 2.0), v(lambda r: (r[0], jnp.sum(r)))(m))
P(v(lambda r: v(lambda q: jnp.argmax(q) + jnp.max(q))(r))(jnp.arange(24).reshape(2, 3, 4)))
P(v(lambda r: v(lambda x: x * 2.0)(r))(m), v(lambda r: r + 1.0)(jnp.zeros([0, 3])), v(lambda r: jnp.sum(r))(jnp.ones([1, 2])))
P(v(lambda r: lax.psum(r, 'v'), axis_name='v')(m), v(lambda r: (lax.axis_index('v'), lax.pmax(jnp.sum(r), 'v'), lax.all_gather(r[0], 'v')), axis_name='v')(m))
P(v(lambda r: lax.ppermute(r, 'v', [(0, 2), (2, 1), (1, 0)]), axis_name='v')(m), v(lambda r: lax.all_to_all(r, 'v', 0, 0), axis_name='v')(jnp.arange(9).reshape(3, 3)))
P(jax.pmap(v(lambda x: lax.psum(x, ('i', 'j')), axis_name='j'), axis_name='i')(jnp.arange(16.0).reshape(8, 2)))
P(v(lambda k: jr.uniform(k, [2]))(jr.split(jr.key(1), 3)), v(lambda k: jr.normal(k, [3]))(jr.split(jr.key(2), 2)))
print(str(jr.split(jr.key(0))), str(jr.split(jr.key(0), 3)), str(jr.split(jr.key(0), num=1)), T(jr.key_data(jr.fold_in(jr.key(0), 7))))
P(jr.uniform(jr.key(3), [2, 2], minval=-1.0, maxval=1.0), jr.randint(jr.key(4), [6], 0, 10), jr.randint(jr.key(4), [3], -5, 5), jr.bernoulli(jr.key(5), 0.3, [6]))
P(jr.uniform(jr.key(6), []), jr.normal(jr.key(7), []), jr.randint(jr.key(8), [2], 3, 4), jr.uniform(jr.key(9), [0]), jr.key_data(jr.key(2147483647)), jr.key_data(jr.key(-1)))
