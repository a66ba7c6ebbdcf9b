"""Candidate f32 summation orders of a product A [M, K] @ B [K, N] in NumPy (dot14 dev tool).

FMA emulated in float64 (the product is exact there; a double rounding of the sum is
possible but rare). one_chain: an in-order chain per output; pairs: even-k and odd-k
chains added; slices: chains over slices of k added."""
import numpy as np
f32=np.float32
def fma(a,b,c):  # vectorised, f64 emulation
    return (a.astype(np.float64)*b.astype(np.float64)+c.astype(np.float64)).astype(f32)
def chain(A,B,ks,fused=True,init=None):
    # A [M,K], B [K,N]; sum over ks in order
    M,N=A.shape[0],B.shape[1]
    c=np.zeros((M,N),f32) if init is None else init.copy()
    for k in ks:
        p=A[:,k:k+1]*B[k:k+1,:] if not fused else None
        c = fma(np.broadcast_to(A[:,k:k+1],(M,N)),np.broadcast_to(B[k:k+1,:],(M,N)),c) if fused else (c+p).astype(f32)
    return c
def one_chain(A,B,fused=True):
    return chain(A,B,range(A.shape[1]),fused)
def slices(A,B,kc,fused=True):
    K=A.shape[1]; c=np.zeros((A.shape[0],B.shape[1]),f32)
    for k0 in range(0,K,kc):
        c=(c+chain(A,B,range(k0,min(K,k0+kc)),fused)).astype(f32)
    return c
def pairs(A,B,fused=True):
    K=A.shape[1]
    e=chain(A,B,range(0,K-K%2,2),fused); o=chain(A,B,range(1,K-K%2,2),fused)
    s=(e+o).astype(f32)
    if K%2: s=(s+(A[:,K-1:K]*B[K-1:K,:]).astype(f32)).astype(f32)
    return s
def lanes(A,B,L,fused=True,combine="seq"):
    K=A.shape[1]; Kl=K//L*L
    acc=[chain(A,B,range(l,Kl,L),fused) for l in range(L)]
    return acc
def cmp(name,got,want):
    d=(got.view(np.int32)!=want.view(np.int32)).sum()
    print(f"{name:30s} {d} / {want.size} differ")
    return d
