"""dot14: the model of YNNPACK's order for a.T @ b on an AVX2 host, checked against JAX.

    /tmp/jaxenv/bin/python tn_model.py SEED COUNT KMAX

random shapes (M, N < 130, K <= KMAX), jax.jit(a.T @ b) against model_tn bit for bit;
prints the shapes that differ. EmitDot's dotTransposedLhsTails is slice_tn; K in
257..512 as two halves added is measured at 257, 300, 512 only and not in spmdrun."""
from probe import *
import math, sys
def bc(x,shape): return np.broadcast_to(x,shape)
def pairs_t(A,B,fused):
    # pairs over A[:, :K], last odd product as fma(last, s) (fused) or s + round(last)
    K=A.shape[1]
    e=chain(A,B,range(0,K-K%2,2),fused); o=chain(A,B,range(1,K-K%2,2),fused)
    s=(e+o).astype(f32)
    if K%2:
        a=bc(A[:,K-1:K],s.shape); b=bc(B[K-1:K,:],s.shape)
        s = fma(a,b,s) if fused else (s+(a*b).astype(f32)).astype(f32)
    return s
def slice_tn(A,B):
    M,K=A.shape; N=B.shape[1]
    C=np.empty((M,N),f32)
    M6=M-M%6; r=M%6
    Nm=N-(N%16 if 1<=N%16<=8 else 0)
    if M6:
        C[:M6,:Nm]=one_chain(A[:M6],B[:,:Nm])
        C[:M6,Nm:]=pairs_t(A[:M6],B[:,Nm:],True)
    if r:
        At=A[M6:]
        if r<=2: C[M6:]=pairs_t(At,B,False)
        elif r==3: C[M6:]=pairs_t(At,B,True)
        else:
            C[M6:,:Nm]=one_chain(At,B[:,:Nm]); C[M6:,Nm:]=pairs_t(At,B[:,Nm:],True)
    return C
def model_tn(A,B):
    K=A.shape[1]
    if K<=256: return slice_tn(A,B)
    h=math.ceil(K/2)
    return (slice_tn(A[:,:h],B[:h])+slice_tn(A[:,h:],B[h:])).astype(f32)
if __name__=="__main__":
    rng=np.random.default_rng(int(sys.argv[1])); n=int(sys.argv[2]); kmax=int(sys.argv[3])
    bad=0
    for t in range(n):
        M=int(rng.integers(2,130)); K=int(rng.integers(1,kmax+1)); N=int(rng.integers(2,130))
        A,B,w=get("tn",M,K,N,seed=t+7)
        g=model_tn(A,B)
        d=(g.view(np.int32)!=w.view(np.int32)).sum()
        if d: bad+=1; print(f"  {M}x{K}x{N}: {d}/{w.size} differ")
    print("bad",bad,"of",n)
