#!/usr/bin/env python3
"""Writes trig_large.spmd and trig_large.out from JAX on the CPU: the expected values of
the assert_close lines and the printed output are what JAX computes.
Needs JAX: /tmp/jaxenv/bin/python tests/golden/gen_trig_large.py"""
import os

import jax
import jax.numpy as jnp
import numpy as np

f32 = np.float32
HERE = os.path.dirname(os.path.abspath(__file__))
BIG = [1.4037388e23, 1e16, -1e30, 3.4028235e38, -3.4028235e38, 1e10, -7.1e12, 16367173.0 * 2.0 ** 72,
       117435.99, 117436.0, -117436.02, 1e7, 8.6e37, 2.5e20, -6.0e31, 1e6]
# Within 2 ulp of JAX: |got - want| <= 2.4e-7 |want| (an ulp is at most 2^-23 |want|).
RTOL = "rtol=2.4e-7, atol=0.0"

big = jnp.array(BIG, jnp.float32)
many = jnp.concatenate([big, -big, big * 0.5])
near = jnp.asarray((np.arange(1, 41, dtype=np.float64) * 2.0 ** 40 * 1.5707963267948966).astype(f32))


def lit(a):
    return "[" + ", ".join(repr(float(v)) if v == 0 else np.format_float_positional(v, unique=True) if 1e-4 < abs(v) < 1e16
                           else np.format_float_scientific(v, unique=True) for v in np.asarray(a)) + "]"


want = {name: lit(v) for name, v in {
    "sin": jnp.sin(many), "cos": jnp.cos(many), "tan": jnp.tan(many),
    "sin_near": jnp.sin(near), "cos_near": jnp.cos(near),
    "pmap": jax.vmap(lambda v: jnp.sin(v) * jnp.cos(v))(big.reshape(2, 8)).reshape(16),
    "grad": jax.grad(lambda x: jnp.sum(jnp.sin(x)))(big)}.items()}

SPMD = f"""# sin, cos and tan over the whole float range: past |x| = 117435.99 they reduce by the
# Payne-Hanek method (compiler/codegen/VecMathTrig.cpp); before, sin(1.4037388e23) was
# 1.0, tan(1e16) inf and cos(1e30) nan. Written by gen_trig_large.py: the expected
# values are JAX's (on the CPU), within 2 ulp (assert_close) or exactly (print).
let big = f32([{", ".join(repr(v) for v in BIG[:7])},
               16367173.0 * 2.0 ** 72, {", ".join(repr(v) for v in BIG[8:])}])
# Scalars (the scalar helper) and arrays long enough for the vectorised loop.
print(sin(f32(1.4037388e23)), tan(f32(1e16)), cos(f32(16367173.0 * 2.0 ** 72)))
let many = concat([big, -big, big * 0.5])
assert_close(sin(many), {want["sin"]}, {RTOL})
assert_close(cos(many), {want["cos"]}, {RTOL})
assert_close(tan(many), {want["tan"]}, {RTOL})
# The inputs the reduction is hardest for: floats near multiples of pi/2.
let near = f32(f64(arange(1, 41)) * 2.0 ** 40 * 1.5707963267948966)
assert_close(sin(near), {want["sin_near"]}, {RTOL})
assert_close(cos(near), {want["cos_near"]}, {RTOL})
# Non-finite inputs give NaN; signed zeros stay.
let inf_ = f32(1.0) / f32(0.0)
print(sin(inf_), cos(-inf_), tan(inf_ - inf_), sin(f32(-0.0)), tan(f32(-0.0)), cos(f32(-0.0)))
# In a pmap (device kernels) and under grad.
assert_close(ravel(pmap i (v in reshape(big, [2, 8])) {{ sin(v) * cos(v) }}), {want["pmap"]}, {RTOL})
assert_close(grad(fn (x) = sum(sin(x)))(big), {want["grad"]}, {RTOL})
print("ok")
"""

inf_ = np.array(np.inf, f32)
out = [" ".join(str(np.asarray(v)) for v in (jnp.sin(f32(1.4037388e23)), jnp.tan(f32(1e16)),
                                            jnp.cos(f32(16367173.0 * 2.0 ** 72)))),
       " ".join(str(np.asarray(v)) for v in (jnp.sin(inf_), jnp.cos(-inf_), jnp.tan(inf_ - inf_),
                                            jnp.sin(f32(-0.0)), jnp.tan(f32(-0.0)), jnp.cos(f32(-0.0)))),
       "ok"]
with open(os.path.join(HERE, "trig_large.spmd"), "w") as f:
    f.write(SPMD)
with open(os.path.join(HERE, "trig_large.out"), "w") as f:
    f.write("\n".join(out) + "\n")
