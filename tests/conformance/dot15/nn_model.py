"""dot15 dev tool: ynn_model.py against jax.jit(a @ b) (or a @ b.T with a 6th argument) on
random shapes, bit for bit.

    /tmp/jaxenv/bin/python nn_model.py SEED COUNT KMAX MMAX NMAX [nt]"""
import os, sys
os.environ["XLA_FLAGS"]="--xla_force_host_platform_device_count=8"
import jax, jax.numpy as jnp, numpy as np
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../dot14"))
from orders import *
from ynn_model import choose
def pairs_nt(A,B,fused=True):
    return pairs(A,B,fused)
def model(A,B,bt=False):
    M,K=A.shape; N=B.shape[1]
    kr,_=choose(M,N,K,b_transposed=bt)
    o=kr[4]
    if o=="1": return one_chain(A,B),o
    if o=="m": return one_chain(A,B,False),o
    if o=="p": return pairs(A,B,True),o
    if o=="q": return pairs(A,B,False),o
def run(seed,n,kmax,mmax,nmax,bt=False):
    rng=np.random.default_rng(seed); bad=0; cnt={}; ocb=0
    f=jax.jit(lambda a,b: a@b.T) if bt else jax.jit(lambda a,b:a@b)
    for t in range(n):
        M=int(rng.integers(1,mmax+1)); K=int(rng.integers(1,kmax+1)); N=int(rng.integers(2,nmax+1))
        a=jax.random.uniform(jax.random.key(t),(M,K),jnp.float32,-1,1)
        b=jax.random.uniform(jax.random.key(t+1000),(N,K) if bt else (K,N),jnp.float32,-1,1)
        w=np.asarray(f(a,b)); A=np.asarray(a); B=np.asarray(b).T.copy() if bt else np.asarray(b)
        g,o=model(A,B,bt)
        d=(g.view(np.int32)!=w.view(np.int32)).sum()
        oc=(one_chain(A,B).view(np.int32)!=w.view(np.int32)).sum()
        cnt[o]=cnt.get(o,0)+1; ocb+=bool(oc)
        if d: bad+=1; print(f"  {M}x{K}x{N} model {o}: {d}/{w.size} differ (one chain {oc})")
    print("bad",bad,"of",n,cnt,"one chain bad",ocb)
if __name__=="__main__":
    a=sys.argv; run(int(a[1]),int(a[2]),int(a[3]),int(a[4]),int(a[5]),len(a)>6)
