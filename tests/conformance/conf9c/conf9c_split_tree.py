from conf9c_common import *
root = R.key(7)
layers = R.split(root, 3)
kw, kb = R.split(layers[1])[0], R.split(layers[1])[1]
print(A(R.key_data(layers)))
print(A(R.normal(kw, (2, 3))))
print(A(R.uniform(kb, (4,), minval=-0.5, maxval=0.5)))
deep = R.split(R.split(R.split(root, 4)[3], 5)[2], 2)
print(A(R.key_data(deep)))
def body(k):
    ks = R.split(R.fold_in(k, lax.axis_index('i')), 3)
    return R.normal(ks[0], (3,)), R.uniform(ks[1], (2, 2), minval=1.0, maxval=3.0), R.key_data(ks[2])
per = pm(body, R.split(root, 8))
print(A(per[0][2]))
print(A(per[1][7]))
print(A(per[2]))
print(A(jax.vmap(lambda k: R.normal(k, (2,)) * 0.1)(R.split(root, 4))))
print(A(jax.vmap(lambda k: jax.vmap(lambda kk: R.uniform(kk, (3,)))(R.split(k, 2)))(R.split(root, 3))))
