from common import *
P(jnp.arange(0, 1, 0.1), jnp.arange(10, 0, -3), jnp.arange(0.5, 3), jnp.arange(-3), jnp.arange(3, 3), jnp.arange(1, 2, 0.3), jnp.arange(5.0, 0.0, -1.5))
P(jnp.linspace(0, 1, 1), jnp.linspace(0, 1, 3), jnp.linspace(-1.0, 1.0, 4), jnp.linspace(1, 0, 7), jnp.linspace(0, 10, 11), jnp.linspace(3, 3, 2))
P(jnp.zeros([]), jnp.ones([], jnp.int32), jnp.full([], True), jnp.full([2], jnp.uint32(5)), jnp.full([2, 1], -0.0), jnp.ones([2], jnp.uint32), jnp.zeros([1, 0, 2], bool), jnp.eye(1), jnp.eye(2, dtype=bool))
P(jnp.arange(3000.0).reshape(10, 10, 30))
P(jnp.arange(1001) > 500, jnp.zeros([1001], jnp.uint32), jnp.arange(2002).reshape(2, 1001) % 7 == 0)
P(jnp.arange(1024).reshape([2] * 10)[0, 0, 0, 0, 0])
F = lambda v: jnp.array(v, jnp.float32)
P(jnp.arange(8.0) * 1e-10, jnp.arange(8.0) * 1e10, F([1e-10, 1.0, 1e10]), F([0.5, 1e-4]), F([3.14159265, 2.0]), F([1.0, 12345678.0]))
