import jax, jax.numpy as jnp, numpy as np
A = np.asarray
print(A(jnp.arange(0.0, 1.0, 0.1)), A(jnp.arange(1.0, -1.0, -0.25)), A(jnp.arange(0.5, 3)), A(jnp.arange(-2, 5, 3)))
print(A(jnp.linspace(10, -2.0, 7)), A(jnp.linspace(0, 1, 5)), A(jnp.linspace(2.0, 3.0, 1)), A(jnp.linspace(0.0, 1.0, 0)))
print(A(jnp.linspace(10, -2.0, 7)[1]), A(jnp.linspace(-1.0, 1.0, 8)), A(jnp.linspace(1e-3, 1e3, 6)))
print(A(jnp.eye(3)), A(jnp.eye(2) * 5), A(jnp.eye(1)), jnp.eye(0).shape)
print(A(jnp.full([2, 3], 7)), A(jnp.full([2], 2.5)), A(jnp.full([3], True)), A(jnp.full([2], -1, jnp.uint32)), A(jnp.full([2], 3, jnp.float32)))
print(A(jax.nn.one_hot(jnp.array([0, 2, -1, 3, 5]), 4)), A(jax.nn.one_hot(jnp.array([1], jnp.int32), 1)), A(jax.nn.one_hot(jnp.array([1, 0], jnp.uint32), 2)))
print(A(jnp.zeros([2], jnp.int32)), A(jnp.ones([2], jnp.uint32)), A(jnp.zeros([2], bool)), A(jnp.ones([2, 1])), A(jnp.zeros([])), A(jnp.ones([])))
print(A(jnp.arange(5.0)[::2]), A(jnp.arange(3, 0, -1)), A(jnp.arange(0)), A(jnp.arange(1e7, 1e7 + 3)), A(jnp.arange(16777216.0, 16777220.0)))
