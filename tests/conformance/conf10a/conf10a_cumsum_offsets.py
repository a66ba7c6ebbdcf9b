from conf10a_common import *
x = (R.uniform(R.key(80), (48,)) * 10.0).reshape(8, 6)
def body(b):
    def step(j, c):
        acc, run = c
        run = run + b[j]
        return acc.at[j].set(run), run
    acc, run = fori(6, step, (jnp.zeros(6), jnp.float32(0.0)))
    totals = lax.all_gather(run, 'i')
    before = jnp.sum(jnp.where(jnp.arange(8) < lax.axis_index('i'), totals, 0.0))
    return acc + before
cs = pm(body, x)
print(A(cs[7]), A(cs[0]))
ref = 0.0
for j in range(48): ref = ref + jnp.ravel(x)[j]
print(A(ref), A(cs[7, 5]), A(jnp.sum(x)), A(jnp.mean(cs)))
