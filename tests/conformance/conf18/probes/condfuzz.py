"""Random functions with a run-time `if` on a value computed from v, its operands used
inside and after it, differentiated once and twice, against the JAX twin with a Python
`if` (Note [Cotangents into a cond]). Usage: condfuzz.py SEED N SPMDRUN (in a scratch
directory: writes p.spmd and p.py); prints how many of the 2 N prints differ."""
import random, sys, subprocess, os
seed = int(sys.argv[1]); N = int(sys.argv[2]); bin_ = sys.argv[3]
R = random.Random(seed)
un = ['sin', 'cos', 'tanh', 'exp']
def expr(d, vs):
    if d == 0 or R.random() < 0.25:
        return R.choice(vs + ['%.2f' % R.uniform(0.2, 1.5)])
    k = R.random()
    if k < 0.3: return '%s(%s)' % (R.choice(un), expr(d-1, vs))
    op = R.choice(['+', '-', '*', '*'])
    return '(%s %s %s)' % (expr(d-1, vs), op, expr(d-1, vs))
def jx(e):
    for u in un: e = e.replace(u + '(', 'jnp.' + u + '(')
    return e
spmd, py = [], []
spmd.append('let u = uniform(key(5), [6], 0.2, 1.2)')
py.append('import jax, jax.numpy as jnp\nfrom jax import random as jr\nimport numpy as np\nu = jr.uniform(jr.key(5), (6,), minval=0.2, maxval=1.2)')
for i in range(N):
    a = expr(2, ['v'])
    t = expr(3, ['v', 'a']); f = expr(2, ['v', 'a'])
    post = expr(2, ['v', 'a', 'b'])
    thr = R.choice(['0.0', '2.0', '100.0', '-100.0'])
    spmd.append('fn f%d(v) { let a = %s + zeros([6]); let b = if sum(a) > %s { %s + zeros([6]) } else { %s + zeros([6]) }; sum(%s) }' % (i, a, thr, t, f, post))
    py.append('def f%d(v):\n  a = %s + jnp.zeros(6)\n  b = ((%s) + jnp.zeros(6)) if jnp.sum(a) > %s else ((%s) + jnp.zeros(6))\n  return jnp.sum(%s)' % (i, jx(a), jx(t), thr, jx(f), jx(post)))
    spmd.append('print(grad(f%d)(u))' % i)
    spmd.append('print(grad(fn (v) = sum(grad(f%d)(v)))(u))' % i)
    py.append('print(np.asarray(jax.grad(f%d)(u)))' % i)
    py.append('print(np.asarray(jax.grad(lambda v: jnp.sum(jax.grad(f%d)(v)))(u)))' % i)
open('p.spmd', 'w').write('\n'.join(spmd) + '\n')
open('p.py', 'w').write('\n'.join(py) + '\n')
s = subprocess.run([bin_, 'p.spmd'], capture_output=True, text=True).stdout
j = subprocess.run(['/tmp/jaxenv/bin/python', 'p.py'], capture_output=True, text=True)
import re
def groups(t):
    out, cur = [], ''
    for line in t.splitlines():
        cur += line
        if cur.count('[') == cur.count(']'): out.append(cur); cur = ''
    return out
sg, jg = groups(s), groups(j.stdout)
if len(sg) != len(jg): print('LEN', len(sg), len(jg), j.stderr[-500:], s[-500:]); sys.exit()
bad = [k for k in range(len(sg)) if sg[k] != jg[k]]
print('seed', seed, 'prints', len(sg), 'differ', len(bad), ['%s%d' % ('g1' if k % 2 == 0 else 'g2', k // 2) for k in bad])
