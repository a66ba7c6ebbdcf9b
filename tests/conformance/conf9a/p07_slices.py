import jax, jax.numpy as jnp, numpy as np
A = np.asarray
x = jnp.arange(10)
print(A(x[::-1]), A(x[::-3]), A(x[8:2:-2]), A(x[-2::-4]), A(x[:3:-1]))
print(A(x[7:3]), A(x[100:]), A(x[-100:2]), A(x[3:-3:2]), A(x[::11]), A(x[-1:-11:-1]))
m = jnp.reshape(jnp.arange(20.0), [4, 5])
print(A(m[::-1, ::2]), A(m[1:, -1]), A(m[-1]), A(m[:, ::-1][0]), A(m[::2, 1::2]))
print(A(m[2:2]), m[2:2].shape, m[:, 5:].shape, A(m[3, ::-2]))
t = jnp.reshape(jnp.arange(24), [2, 3, 4])
print(A(t[:, 1]), A(t[-1, ::-1, 1:3]), A(t[0, :, -1]), A(t[:, :, ::3]))
r = x
for k in range(3): r = r[::-1] + k
print(A(r), A(x[1:][::-1][1:]), A(x[::2][::-1]))
