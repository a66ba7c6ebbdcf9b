from conf10a_common import *
adj = (R.uniform(R.key(100), (8, 8)) < 0.4).astype(jnp.float32) + jnp.eye(8) * 0.0
outdeg = jnp.maximum(jnp.sum(adj, axis=0), 1.0)
m = adj / outdeg
def body(row):
    def step(t, ri):
        full = lax.all_gather(ri, 'i')
        return 0.15 / 8.0 + 0.85 * jnp.sum(row * full)
    return fori(30, step, jnp.float32(0.125))
r = pm(body, m)
print(A(r), A(jnp.sum(r)), A(jnp.argmax(r)), A(jnp.max(r)))
