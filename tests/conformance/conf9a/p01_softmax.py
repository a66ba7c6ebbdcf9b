import jax, jax.numpy as jnp, numpy as np
from jax.scipy.special import logsumexp
A = np.asarray
z = jnp.array([[1000.0, 1001.0, 1002.0], [-1000.0, -1000.0, -1000.0], [0.0, -1e30, 3.5]])
def softmax(x):
    m = jnp.max(x, axis=-1, keepdims=True)
    e = jnp.exp(x - m)
    return e / jnp.sum(e, axis=-1, keepdims=True)
def log_softmax(x): return x - logsumexp(x, axis=-1, keepdims=True)
print(A(softmax(z)))
print(A(log_softmax(z)))
print(A(logsumexp(z, axis=1)), A(logsumexp(z)), A(logsumexp(z, axis=0, keepdims=True)))
naive = jnp.exp(z) / jnp.sum(jnp.exp(z), axis=-1, keepdims=True)
print(A(naive))
logits = jnp.reshape(jnp.arange(12.0), [3, 4]) * 30.0 - 150.0
print(A(softmax(logits)), A(jnp.argmax(logits, axis=1)), A(jnp.max(softmax(logits), axis=0)))
labels = jnp.array([3, 0, 1])
lp = log_softmax(logits)
print(A(-jnp.mean(jnp.sum(lp * jax.nn.one_hot(labels, 4), axis=1))))
print(A(logsumexp(jnp.array([-1e30, -1e30]))), A(logsumexp(jnp.zeros([0]))), A(softmax(jnp.array([3.0]))))
