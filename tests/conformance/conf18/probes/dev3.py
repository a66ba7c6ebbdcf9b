from common import *
from jax import lax
n = jax.device_count()
x = jnp.arange(jnp.float32(n * 4)).reshape(n, 4) * 0.5
print(n, T(jax.pmap(lambda r: r / lax.psum(r, 'i'), axis_name='i')(x)))
to_right = [(j, (j + 1) % n) for j in range(n)]
board = jnp.zeros([12], bool).at[5].set(True).reshape(n, -1)
def step(s):
    l = lax.ppermute(s[-1:], 'i', to_right)
    r = lax.ppermute(s[:1], 'i', [((j + 1) % n, j) for j in range(n)])
    b = jnp.concatenate([l, s, r])
    return b[:-2] ^ (b[1:-1] | b[2:])
for t in range(4):
    board = jax.pmap(step, axis_name='i')(board)
    print("".join("*" if v else "." for v in np.asarray(board).ravel()))
inputs = jnp.linspace(0.0, 1.0, 30)
P(jax.pmap(lambda c: jax.vmap(lambda v: jnp.sum(jnp.sin(v * jnp.arange(1.0, 11.0, 1.0))))(c))(inputs.reshape(n, -1)).ravel())
keys = jr.split(jr.key(1), n)
P(jax.pmap(lambda k: jnp.mean(jr.normal(k, [50])))(keys))
P(jax.pmap(lambda k: (lambda m: m @ m.T)(jr.normal(k, [4, 4])))(keys)[1])
