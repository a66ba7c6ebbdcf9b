from r14_common import *
print(A(jnp.zeros([0, 2, 3])), A(jnp.ones([3, 0], bool)), A(jnp.zeros([0], jnp.uint32)), A(jnp.zeros([2, 0, 0], jnp.int32)))
print(A(jnp.zeros([0]) + 1.0), (jnp.zeros([0, 4]) @ jnp.zeros([4, 5])).shape, A(jnp.zeros([0, 4]) @ jnp.zeros([4, 5])))
print(A(jnp.zeros([3, 0]) @ jnp.zeros([0, 2])))
print(A(jnp.sum(jnp.zeros([0, 3]), axis=0)), A(jnp.max(jnp.zeros([3, 0]), axis=0)), A(jnp.prod(jnp.zeros([0]))), A(jnp.mean(jnp.zeros([2, 0]), axis=0)))
print(T((jnp.zeros([0]), (jnp.ones([]), jnp.zeros([0], jnp.int32)))))
print(A(jax.vmap(lambda x: x * 2.0)(jnp.zeros([0, 3]))), A(jax.vmap(jnp.sum)(jnp.zeros([4, 0]))))
