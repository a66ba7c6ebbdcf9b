from conf8b_common import *
R = jax.random
pm = lambda f, *a, **k: jax.pmap(f, axis_name='i', **k)(*a)
x = jnp.arange(16.0).reshape(8, 2); y = jnp.arange(16).reshape(2, 8)
print(A(pm(lambda t: t[0] * t[1].astype(jnp.float32), (x, y.T))))
print(T(pm(lambda v: lax.psum((v, v[0] > 3.0), 'i'), x)))
print(T(pm(lambda v: lax.pmean((v, v[0].astype(jnp.int32)), 'i'), x)))
print(T(pm(lambda v: lax.pmax((v, v.astype(jnp.int32)), 'i'), x)))
print(A(pm(lambda kk: lax.all_gather(R.key_data(kk), 'i')[(lax.axis_index('i') + 1) % 8], R.split(R.key(1), 8)))[:2])  # JAX 0.10 cannot all_gather keys under pmap: their words
print(A(pm(lambda r: jax.vmap(lambda v: lax.axis_index(('j', 'i')), axis_name='j')(r), x.reshape(4, 4))))
w = jnp.array([2.0, -1.0])
print(A(jax.grad(lambda w: jnp.sum(pm(lambda v: lax.psum(v * w, 'i') * lax.axis_index('i').astype(jnp.float32), x)))(w)))
print(A(jax.value_and_grad(lambda w, x: jnp.sum(pm(lambda v: jnp.tanh(v * w[0]), x, in_axes=1)) + w[1], argnums=(0, 1))(w, x)[1][1][:2]))
print(A(jax.grad(lambda x: jnp.sum(nestj(lambda v: lax.ppermute(v, ('i', 'j'), [(k, (k + 3) % 8) for k in range(8)]) * v, x.reshape(4, 2, 2))))(x)[:3]))
mesh = jax.sharding.Mesh(np.array(jax.devices()).reshape(4, 2), ("r", "c"))
print(A(jax.grad(lambda x: jnp.sum(jax.shard_map(lambda a: a * lax.psum(a, 'c') - lax.pmean(a, 'r'), mesh=mesh, in_specs=PS('r', 'c'), out_specs=PS('r', 'c'), check_vma=False)(x)))(jnp.arange(16.0).reshape(4, 4))))
print(A(jax.grad(lambda x: jnp.sum(pm(lambda v: v * v, x, out_axes=1)[1]))(x)))
