from r14_common import *
def step(t, c):
    n, steps = c
    odd = n % 2 == 1
    live = n > 1
    n = jnp.where(live, jnp.where(odd, 3 * n + 1, n // 2), n)
    return n, steps + live.astype(jnp.int32)
n, steps = lax.fori_loop(0, 120, step, (jnp.array([27, 97, 871, 6171], jnp.int32), jnp.zeros([4], jnp.int32)))
print(A(n), A(steps))
def step2(t, h):
    h = h * 31 + t
    return lax.cond(h % 3 == 0, lambda h: h // -3, lambda h: h - h % 5, h)
h = lax.fori_loop(1, 40, step2, jnp.int32(-7))
print(A(h), A(h // 7), A(h % -7))
