# The JAX twins of conf16's error goldens (JAX 0.10.2 on the CPU, 8 host devices): each
# case is a program JAX rejects, which spmdrun rejects at compile time too. Run with
#   /tmp/jaxenv/bin/python errors.py        (prints "CASE: ExceptionType: message")
import os
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import jax, jax.numpy as jnp
from jax import lax


def psum_ii():  # golden err_collective_axis_twice
    return jax.pmap(lambda a: lax.psum(a, ('i', 'i')), axis_name='i')(jnp.ones((8, 3)))


def gather_alias():  # golden err_collective_axis_alias: g[j, j] of fn g[a, b]
    g = lambda x, a, b: lax.all_gather(x, (a, b))
    return jax.vmap(lambda v: g(v, 'j', 'j'), axis_name='j')(jnp.ones(8))


def index_true():  # golden err_index_bool: JAX accepts (a mask), spmdrun rejects on purpose
    return jnp.arange(8.0).reshape(2, 4)[1 > 0]


def set_true():  # golden err_set_bool_index: JAX accepts (sets every element)
    return jnp.arange(4.0).at[True].set(9.0)


def set_float():  # golden err_set_float_index
    x = jnp.arange(4.0)
    return x.at[x[1] * 1.7].set(9.0)


def positional_after_keyword():  # golden err_positional_after_keyword
    compile("jnp.sum(x, keepdims=True, 1)", "f.py", "eval")


def duplicate_argument():  # golden err_duplicate_param
    compile("def loss(w, x, w): return jnp.sum((x @ w) ** 2)", "f.py", "exec")


def stack_shapes():  # golden err_stack_shapes
    return jnp.stack([jnp.ones(2), jnp.ones(3)])


def keyword_twice():  # golden err_user_fn_keyword_twice
    mse = lambda pred, target: jnp.mean((pred - target) ** 2)
    return mse(jnp.ones(3), pred=jnp.arange(3.0))


def full_broadcast():  # golden err_full_broadcast
    return jnp.full([2, 3], jnp.array([1.0, 2.0]))


CASES = [full_broadcast, keyword_twice, stack_shapes, psum_ii, gather_alias, index_true, set_true, set_float, positional_after_keyword,
         duplicate_argument]

if __name__ == "__main__":
    for f in CASES:
        try:
            r = f()
            print(f"{f.__name__}: accepted" + ("" if r is None else f": shape {r.shape} {r.tolist()}"))
        except Exception as e:
            print(f"{f.__name__}: {type(e).__name__}: {str(e).splitlines()[0]}")
