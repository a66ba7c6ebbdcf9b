from common import *
I = lambda v: jnp.array(v, jnp.int32); U = lambda v: jnp.array(v, jnp.uint32); F = lambda v: jnp.array(v, jnp.float32)
big = I([2147483647, 1, 2147483647])
P(jnp.sum(big), jnp.prod(I([65536, 65536, 3])), jnp.mean(big), jnp.sum(U([4294967295, 2])), jnp.prod(U([65536, 65536])), jnp.mean(U([4294967295, 4294967295])))
P(jnp.max(big), jnp.min(I([-2147483648, 0])), jnp.argmax(I([[1, 9], [9, 1]]), axis=0, keepdims=True), jnp.argmin(U([3, 0, 0])), jnp.sum(big, axis=0, keepdims=True))
P(F([-4.0, 4.0, -0.0, 5.0]) % F([2.0, -2.0, 2.0, -2.5]), F([-4.0, 4.0]) // F([2.0, -2.0]), F([-1e-30]) % 1.0, F([1e-30]) % -1.0)
P(jax.nn.logsumexp(I([1, 2])), jax.nn.logsumexp(U([1, 2]), axis=0), jnp.mean(I([1, 2]), axis=0), jnp.mean(jnp.array([True, False]), axis=0, keepdims=True), jnp.sum(jnp.array([[True, True]]), axis=1))
P(I([-7, 7]) // I([2, -2]), I([-7, 7]) % I([2, -2]), U([7]) // U([0]), U([7]) % U([0]), I([-2147483648]) // I([-1]), I([-2147483648]) % I([-1]))
f = jnp.float32
P(f(2147483648.0).astype(jnp.int32), f(-2147483904.0).astype(jnp.int32), f(-1.0).astype(jnp.uint32), f(4294967296.0).astype(jnp.uint32), (f(0.0) / 0.0).astype(jnp.int32), (f(0.0) / 0.0).astype(jnp.uint32), jnp.uint32(4294967295).astype(jnp.int32), jnp.int32(-1).astype(jnp.uint32))
P((f(0.0) / 0.0).astype(bool), f(-0.0).astype(bool), jnp.uint32(0).astype(bool), jnp.float32(True), jnp.int32(2.9), jnp.int32(-2.9), jnp.uint32(2.9))
