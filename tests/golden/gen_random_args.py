#!/usr/bin/env python3
"""Writes random_args.out and key_values.out with JAX itself (jax.random on CPU, x64 off,
threefry partitionable), mirroring random_args.spmd and key_values.spmd line by line.
`pip install jax && python3 tests/golden/gen_random_args.py`."""
import os

import jax
import jax.numpy as jnp
import numpy as np
from jax import random as R

HERE = os.path.dirname(os.path.abspath(__file__))
assert not jax.config.jax_enable_x64 and jax.config.jax_threefry_partitionable


def fmt(v):
    """As spmdrun prints a value: NumPy's str(np.asarray(x)), keys as JAX prints them,
    tuples as (a, b)."""
    if isinstance(v, tuple):
        return "(" + ", ".join(fmt(e) for e in v) + ("," if len(v) == 1 else "") + ")"
    if isinstance(v, jax.Array) and jnp.issubdtype(v.dtype, jax.dtypes.prng_key):
        return str(v)
    return str(np.asarray(v))


def line(*vs):
    return " ".join(fmt(v) for v in vs)


k = R.key(0)
random_args = [
    line(R.bernoulli(k, jnp.array([0.1, 0.9]))),
    line(R.bernoulli(k, jnp.array([[0.2], [0.7]]), (2, 3))),
    line(R.bernoulli(R.key(3), jnp.array([0.25, 0.5, 0.75]), (4, 3))),
    line(R.randint(k, (4,), 5, 5), R.randint(k, (3,), 7, 2)),
    line(jax.vmap(lambda d: R.key_data(R.fold_in(k, d)))(jnp.arange(3))),
    line(jax.vmap(lambda kk, p: R.bernoulli(kk, p, (4,)))(R.split(k, 3), jnp.array([0.1, 0.5, 0.9]))),
    line(R.split(k, 0).shape, R.key_data(R.split(k, 0))),
    line(R.key_data(R.fold_in(k, 4294967295))),
]

ks = R.split(k, 3)
key_values = [
    line(ks == ks[1], ks != ks[1], R.key(0) == R.key(0)),
    line(jnp.where(jnp.array([True, False, True]), ks, R.key(7))),
    line(R.key_data(jnp.stack([R.key(0), R.key(1)])), jnp.concatenate([ks, ks]).shape),
    line(R.key(0)),
    line(+ks[2]),
    line(ks.at[1].set(R.key(5))),
    line(R.split(k, 0)),
    line((R.key(1), 2)),
]

for name, lines in [("random_args", random_args), ("key_values", key_values)]:
    with open(os.path.join(HERE, name + ".out"), "w") as f:
        f.write("\n".join(lines) + "\n")
