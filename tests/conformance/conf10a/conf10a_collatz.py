from conf10a_common import *
starts = jnp.arange(1, 65).reshape(8, 8)
def body(s):
    def step(t, nc):
        n, c = nc
        live = n != 1
        return jnp.where(live, jnp.where(n % 2 == 0, n // 2, 3 * n + 1), n), c + live.astype(jnp.int32)
    n, c = fori(120, step, (s, jnp.zeros(8, jnp.int32)))
    return c, lax.psum(jnp.sum(c), 'i'), lax.pmax(jnp.max(c), 'i')
steps, total, longest = pm(body, starts)
print(A(steps[3]), A(total[0]), A(longest[0]))
print(A(jnp.sum(steps)), A(jnp.max(steps)), A(jnp.argmax(steps)), A(jnp.mean(steps.astype(jnp.float32))), A(jnp.min(steps, axis=1)))
