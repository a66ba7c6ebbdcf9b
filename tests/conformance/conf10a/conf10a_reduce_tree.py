from conf10a_common import *
x = jnp.exp(jnp.sin(jnp.arange(64.0))).reshape(8, 8)
def body(v):
    ai = lax.axis_index('i')
    s0 = jnp.sum(v)
    s1 = s0 + lax.ppermute(s0, 'i', [(j, j - 1) for j in [1, 3, 5, 7]])
    s2 = s1 + lax.ppermute(s1, 'i', [(j, j - 2) for j in [2, 6]])
    s3 = s2 + lax.ppermute(s2, 'i', [(4, 0)])
    b1 = jnp.where(ai == 0, s3, 0.0)
    b2 = b1 + lax.ppermute(b1, 'i', [(0, 4)])
    b3 = b2 + lax.ppermute(b2, 'i', [(0, 2), (4, 6)])
    b4 = b3 + lax.ppermute(b3, 'i', [(0, 1), (2, 3), (4, 5), (6, 7)])
    return s3, lax.psum(s0, 'i'), b4
tree, ps, back = pm(body, x)
print(A(tree[0]), A(ps[0]), A(tree[0] - ps[0]))
print(A(back))
print(A(jnp.sum(x)), A(jnp.sum(jnp.sum(x, axis=1))))
