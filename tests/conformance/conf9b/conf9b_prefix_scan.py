from conf9b_common import *
n = 8
x = jnp.arange(40).reshape(8, 5) % 7 - 2
def body(v):
    s = jnp.sum(v)
    acc = s
    for r in range(3):
        d = 2 ** r
        acc = acc + lax.ppermute(acc, 'i', [(j, j + d) for j in range(n - d)])
    return acc, acc - s
incl, excl = pm(body, x)
print(A(incl), A(excl))
def blk(v, off):
    def it(k, c):
        run, out = c
        run = run + v[k]
        return run, out.at[k].set(run)
    return fori(5, it, (off, jnp.zeros(5, jnp.int32)))[1]
print(A(pm(blk, x, excl).ravel()))
