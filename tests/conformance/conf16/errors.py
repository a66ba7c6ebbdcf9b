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


CASES = [psum_ii, gather_alias]

if __name__ == "__main__":
    for f in CASES:
        try:
            r = f()
            print(f"{f.__name__}: accepted (shape {r.shape})")
        except Exception as e:
            print(f"{f.__name__}: {type(e).__name__}: {str(e).splitlines()[0]}")
