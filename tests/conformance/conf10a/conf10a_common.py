# Shared by the conf10a twins: conf9b's helpers (JAX 0.10.2 on the CPU, 8 host devices;
# pm for a pmap over 'i', fori for a loop in a pmap body, A = np.asarray, R = jax.random).
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "conf9b"))
from conf9b_common import *  # noqa: E402,F401,F403
