from conf10a_common import *
logits = pm(lambda k: R.normal(k, (5,)) * 3.0, R.split(R.key(55), 8))
m = jnp.max(logits)
e = jnp.exp(logits - m)
p = e / jnp.sum(e)
print(A(p[1]), A(jnp.sum(p)), A(jax.nn.logsumexp(logits)))
rows = jnp.exp(logits - jnp.max(logits, axis=1, keepdims=True))
print(A(rows / jnp.sum(rows, axis=1, keepdims=True)))
target = 13
print(A(-(logits[target // 5, target % 5] - jax.nn.logsumexp(logits))), A(jnp.mean(logits)), A(jnp.min(logits)))
