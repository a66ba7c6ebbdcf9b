import os
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")  # run.sh sets it
import jax, jax.numpy as jnp, numpy as np
from jax import random as jr
def A(x): return np.asarray(x)
def T(t):
    if isinstance(t, tuple): return "(" + ", ".join(T(e) for e in t) + ("," if len(t)==1 else "") + ")"
    return str(np.asarray(t))
def P(*a): print(*[T(x) for x in a])
