# conf11: a sweep of whole-array f32 sums (2-D, 3-D, below 4096 elements) and products
# against JAX: `python3 sweep_sum_vf.py SEED` writes sweep.spmd and its twin sweep.py;
# compare `spmdrun sweep.spmd` with `python sweep.py` line by line. Seed 1 on the AVX2
# host: 149 of 400 lines differed with the AVX-512 VF table (97/260 2-D sums, 34/100
# 3-D sums, 18/40 products), 0 with the host table (vfTable in XlaSum.cpp).
import random, sys
random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
cases = []
for i in range(260):
    a = random.choice([random.randint(1, 40), random.randint(2, 33), random.choice([8, 16, 20, 24, 28, 32, 4, 2])])
    c = random.randint(1, 40) if random.random() < .5 else random.randint(2, 32)
    cases.append(('sum', [a, c], random.choice(['x', 'x * x', 'exp(sin(x))'])))
for i in range(100):
    while True:
        s = [random.randint(1, 20), random.randint(1, 33), random.randint(1, 33)]
        if s[0]*s[1]*s[2] < 4096: break
    cases.append(('sum', s, random.choice(['x', 'x * x'])))
for i in range(40):
    cases.append(('prod', [random.randint(2, 32), random.randint(2, 32)], 'x'))
sp = []; py = ['import jax, jax.numpy as jnp, numpy as np', 'from jax import random as R']
for k, (op, s, e) in enumerate(cases):
    lo, hi = ('0.9', '1.1') if op == 'prod' else ('-2.0', '2.0')
    sp.append(f'let x{k} = uniform(key({k + 1000}), {s}, lo={lo}, hi={hi})')
    sp.append(f'print("{k} {op} {s} {e}", {op}({e.replace("exp", "EXP").replace("x", f"x{k}").replace("EXP", "exp")}))')
    py.append(f'x = R.uniform(R.key({k + 1000}), {s}, minval={lo}, maxval={hi})')
    je = e.replace('exp(', 'jnp.exp(').replace('sin(', 'jnp.sin(')
    py.append(f'print("{k} {op} {s} {e}", np.asarray(jnp.{op}({je})))')
open('sweep.spmd', 'w').write('\n'.join(sp) + '\n'); open('sweep.py', 'w').write('\n'.join(py) + '\n')
