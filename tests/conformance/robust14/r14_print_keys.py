from r14_common import *
k = R.key(0)
print(repr(k))
print(repr(R.split(k, 3)))
print(repr(R.split(k, 4).reshape(2, 2)))
print(A(R.key_data(R.fold_in(k, 7))), A(R.key_data(R.split(R.key(4294967295), 2))))
