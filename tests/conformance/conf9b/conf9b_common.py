# Shared by the conf9b twins: conf8b's helpers (JAX 0.10.2 on the CPU, 8 host devices;
# nest/nestj for nested pmaps, T for tuples), plus pm for a pmap over axis 'i'.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "conf8b"))
from conf8b_common import *  # noqa: E402,F401,F403


def pm(f, *xs, name="i"):
    """jax.pmap(f, axis_name=name)(*xs)."""
    return jax.pmap(f, axis_name=name)(*xs)


def fori(n, f, init):
    """A `for t in 0..n` loop inside a pmap body: lax.fori_loop, as spmdrun compiles it
    (a Python loop would unroll and let XLA fuse across iterations)."""
    return lax.fori_loop(0, n, f, init)
