#!/usr/bin/env python3
"""Writes all_to_all.out: what JAX prints for all_to_all.spmd, line by line, with
jax.lax.all_to_all under jax.pmap on 4 host CPU devices. Needs JAX (not needed to run the
tests): `python3 -m venv v && v/bin/pip install jax && v/bin/python gen_all_to_all.py`."""
import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def a2a(x, split, concat, tiled=False):
    f = jax.pmap(lambda v: jax.lax.all_to_all(v, "i", split, concat, tiled=tiled), axis_name="i")
    return np.asarray(f(x))


x = jnp.arange(96.0, dtype=jnp.float32).reshape(4, 4, 6)
y = jnp.arange(96.0, dtype=jnp.float32).reshape(4, 6, 4)
z = jnp.arange(192.0, dtype=jnp.float32).reshape(4, 2, 4, 6)
lines = [str(a2a(x, 0, 1)), str(a2a(x, 0, 0)), str(a2a(y, 1, 0)), str(a2a(x, 0, 1, True)),
         str(a2a(y, 1, 0, True)), str(tuple(int(d) for d in a2a(z, 1, 2).shape))]
with open(os.path.join(HERE, "all_to_all.out"), "w") as f:
    f.write("\n".join(lines) + "\n")
