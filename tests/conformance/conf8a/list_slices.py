import jax, jax.numpy as jnp, numpy as np
A = np.asarray
sig = jnp.array([3.0, -1.0, 4.0, 1.5])
print(A(sig[::-1]), A(sig[::-2]), A(sig[-1:0:-1]), A(sig[10:-10:-1]), A(sig[-10:10:3]), A(sig[2::-1]), A(sig[1:1:-1]))
print(A(sig[::-1][:3] * 2.0), A(jnp.sum(sig[:-5:-1])), A(jnp.argmax(sig[::-1])))
t = (1, (2.5, 3), 7)
print(t[::-1], t[-2::-1], t[5:-5:-2], t[::-1][0] + 1)
sh = jnp.zeros((2, 3, 4)).shape
print(sh[::-1], sh[-1:-3:-1], jnp.zeros(sh[::-1]).shape == sh[::-1])
print(A(jnp.array([[1, 2], [3, 4]])[:, 0]), A(jnp.array([[1.5, 2.0], [3.0, 4.0]])[::-1, 1]), A(jnp.array([[1, 2], [3, 4]])[1, ::-1]))
