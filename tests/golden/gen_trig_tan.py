#!/usr/bin/env python3
"""Writes trig_tan.out from JAX on the CPU: f32 tan is the C library's tanf there, and
spmdrun's is glibc's algorithm bit for bit (Note [glibc tanf] in VecMathTrig.cpp); the
float32 values print with the digits that identify them, so the comparison is exact.
Needs JAX: /tmp/jaxenv/bin/python tests/golden/gen_trig_tan.py"""
import os

import jax
import jax.numpy as jnp
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
f32 = np.float32
# Every path of tanf: |x| <= pi/4 as is (tiny, small, >= 0.6744 reflected), reduced below
# 120 (even and odd quadrants, reflected, near multiples of pi/2) and above (Payne-Hanek),
# subnormals, signed zeros; inf and NaN give NaN.
POINTS = [1e-5, -3e-4, 0.1, 0.5, 0.6744, 0.7, 0.78539814, 0.7853982, 0.8, 1.0, 1.5, 1.5707963,
          1.5707964, 2.0, 2.3561945, 3.1415927, 4.0, 4.712389, 10.0, 33.0, 100.0, 119.99999, 120.0,
          -120.0, 1234.5678, 1e5, 3.0e8, 1e16, 1.4037388e23, 8.6e37, 3.4028235e38, 1e-40]
points = np.array(POINTS, f32)
runs = [("tan(xs)", jnp.tan(jnp.concatenate([points, -points]))),
        ("tan(linspace(-20.0, 20.0, 97))", jnp.tan(jnp.linspace(-20.0, 20.0, 97, dtype=jnp.float32))),
        ("tan(f32(arange(1, 49)) * f32(1.5707964))",
         jnp.tan(jnp.arange(1, 49, dtype=jnp.float32) * f32(1.5707964)))]
jax_out = [str(np.asarray(v)) for _, v in runs]
special = np.asarray(jnp.tan(jnp.array([0.0, -0.0, np.inf, -np.inf, np.nan], f32)))
with open(os.path.join(HERE, "trig_tan.out"), "w") as f:
    f.write("\n".join(jax_out) + "\n" + str(special) + "\n")
