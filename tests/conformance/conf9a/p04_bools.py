import jax, jax.numpy as jnp, numpy as np
A = np.asarray
b = jnp.array([True, False, True, True, False])
print(A(b + b), A(b * b), A(b & ~b), A(b | False), A(b ^ True), A(~b))
print(A(jnp.sum(b)), A(jnp.mean(b)), A(jnp.prod(b)), A(jnp.max(b)), A(jnp.min(b)), A(jnp.argmax(b)), A(jnp.argmin(b)))
print(A(b + 1), A(b * 2.5), A(b - 1), A(-b.astype(jnp.int32)), A(b * jnp.uint32(7)), A(b / 2))
print(A(jnp.all(b)), A(jnp.any(b)), A(jnp.all(b[1:2])), A(jnp.any(jnp.zeros([0], bool))), A(jnp.all(jnp.zeros([0], bool))))
x = jnp.arange(5.0) - 2.0
print(A(x * b), A(jnp.where(b, x, -x)), A(b * -x))
print(A(b == 1), A(b > False), A(b < 0.5), A((x > 0) == b), (not True) or False)
print(A(b.astype(jnp.int32) @ b.astype(jnp.int32)), A(b.astype(jnp.float32) @ jnp.arange(5.0)), A(jnp.sum(b, axis=0, keepdims=True)))
print(True + True, True * 3, False - 1, True / 2, 3 // True)
