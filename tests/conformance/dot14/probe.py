"""dot14 dev tool: which candidate order (orders.py) matches jax.jit's product per row.

    /tmp/jaxenv/bin/python probe.py tn 7x51x17 8x64x24   # op: tn (a.T @ b), nn, nt

Prints, per run of rows, the candidates matching the whole row (1 one chain, p pairs,
m one chain without FMA, q pairs without FMA, . none)."""
import os, sys
os.environ["XLA_FLAGS"]="--xla_force_host_platform_device_count=8"
import jax, jax.numpy as jnp, numpy as np
from orders import *
def get(op,M,K,N,seed=1):
    if op == "tn":
        a = jax.random.uniform(jax.random.key(seed), (K,M), jnp.float32, -1, 1); A = np.asarray(a).T.copy()
    else:
        a = jax.random.uniform(jax.random.key(seed), (M,K), jnp.float32, -1, 1); A = np.asarray(a)
    if op == "nt":
        b = jax.random.uniform(jax.random.key(seed+1), (N,K), jnp.float32, -1, 1); B = np.asarray(b).T.copy()
    else:
        b = jax.random.uniform(jax.random.key(seed+1), (K,N), jnp.float32, -1, 1); B = np.asarray(b)
    f = {"tn": lambda a,b: a.T @ b, "nn": lambda a,b: a @ b, "nt": lambda a,b: a @ b.T}[op]
    return A,B,np.asarray(jax.jit(f)(a, b))
def rowsig(A,B,want):
    c = {"1": one_chain(A,B), "p": pairs(A,B), "m": one_chain(A,B,False), "q": pairs(A,B,False)}
    M,N=want.shape
    sig=[]
    for i in range(M):
        # per row: which candidate matches the whole row (or the cols split)
        s=""
        for name,v in c.items():
            if (v[i].view(np.int32)==want[i].view(np.int32)).all(): s+=name
        sig.append(s or ".")
    return sig
if __name__=="__main__":
    op=sys.argv[1]
    for s in sys.argv[2:]:
        M,K,N=map(int,s.split("x"))
        A,B,w=get(op,M,K,N)
        sig=rowsig(A,B,w)
        out=[];prev=None;st=0
        for i,r in enumerate(sig+[None]):
            if r!=prev:
                if prev is not None: out.append(f"{st}-{i-1}:{prev}")
                prev=r;st=i
        print(f"{op} {s}: "+" ".join(out))
