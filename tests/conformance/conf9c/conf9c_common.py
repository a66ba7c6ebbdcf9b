# Shared by the conf9c twins: conf9b's helpers (JAX 0.10.2 on the CPU, 8 host devices;
# pm for a pmap over 'i', nest for nested pmaps, fori for a loop in a pmap body, T for
# tuples), plus D for a dtype as spmdrun prints it.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "conf9b"))
from conf9b_common import *  # noqa: E402,F401,F403
