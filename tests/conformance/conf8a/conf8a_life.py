import jax, jax.numpy as jnp, numpy as np
A = np.asarray; a_ = jnp.array
n = 8
board = jnp.zeros((n, n), bool)
for ij in [(1, 2), (2, 3), (3, 1), (3, 2), (3, 3)]:
    board = board.at[ij].set(True)
def roll0(x, k): return jnp.concatenate([x[-k:], x[:-k]], axis=0)
def roll1(x, k): return jnp.concatenate([x[:, -k:], x[:, :-k]], axis=1)
def neighbours(b):
    x = b.astype(jnp.int32)
    total = jnp.zeros(x.shape, jnp.int32)
    for dy in range(-1, 2):
        for dx in range(-1, 2):
            if dy != 0 or dx != 0:
                s = x if dy == 0 else (roll0(x, 1) if dy > 0 else roll0(x, n - 1))
                total = total + (s if dx == 0 else (roll1(s, 1) if dx > 0 else roll1(s, n - 1)))
    return total
render = lambda b, on, off: "".join(on if v else off for v in np.asarray(b).ravel())
print(A(neighbours(board)))
for t in range(4):
    c = neighbours(board)
    board = jnp.where(board, (c == 2) | (c == 3), c == 3)
    print(render(board[0:5], "#", "."), A(jnp.sum(board)), A(jnp.sum(board, axis=0)))
print(A(board))
print(A(jnp.argmax(jnp.sum(board, axis=1))), A(jnp.max(board.astype(jnp.int32) * jnp.arange(n))), A(jnp.mean(board)))
