from conf9b_common import *
g = (jnp.arange(72.0) % 7.0).reshape(4, 3, 2, 3)
up = [(j, (j + 1) % 4) for j in range(4)]
down = [((j + 1) % 4, j) for j in range(4)]
sw = [(0, 1), (1, 0)]
def lap(b):
    north = lax.ppermute(b[-1:, :], 'i', up)
    south = lax.ppermute(b[:1, :], 'i', down)
    west = lax.ppermute(b[:, -1:], 'j', sw)
    east = lax.ppermute(b[:, :1], 'j', sw)
    col = jnp.concatenate([north, b, south], axis=0)
    row = jnp.concatenate([west, b, east], axis=1)
    return col[:-2, :] + col[2:, :] + row[:, :-2] + row[:, 2:] - 4.0 * b
def body(b):
    h = fori(4, lambda t, h: h + 0.1 * lap(h), b)
    return h, lax.psum(jnp.sum(h), ('i', 'j'))
out, total = nest(body, jnp.transpose(g, (0, 2, 1, 3)))
print(out.shape)
print(out[1, 0])
print(out[3, 1])
print(total[0, 0], total[2, 1], A(jnp.sum(g)))
