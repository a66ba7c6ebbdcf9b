import jax, jax.numpy as jnp, numpy as np
A = np.asarray; a_ = jnp.array
st = (a_([1.0, 0.0]), 2.0)
st = (st[0] * 2.0, st[1] + 1.0)
print("(%s, %s)" % (A(st[0]), st[1]))
s2 = (a_([1.0, 0.0]), 2.0)
for t in range(3): s2 = (s2[0] * 2.0 + s2[1], s2[1] + 1.0)
print("(%s, %s)" % (A(s2[0]), s2[1]))
s3 = (jnp.int32(1), (a_([1, 2]), a_([0.5])))
for t in range(2): s3 = (s3[0] * 3, (s3[1][0] + s3[0], s3[1][1] / 2.0))
print(A(s3[0]), A(s3[1][0]), A(s3[1][1]))
