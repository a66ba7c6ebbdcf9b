"""dot18 dev tool: random spmdrun programs and their JAX twins (r.spmd, r.py in the current
directory): `a @ b`, grad's dA (`a @ b.T`) and a vmap of it (batched), K 200..6000, each
printing 8 elements of a row; the shapes go to stderr. Then diff the two outputs.

    /tmp/jaxenv/bin/python rand_programs.py SEED COUNT 2> shapes.txt
    /tmp/jaxenv/bin/python r.py > jax.out; build/spmdrun --devices cpu:8 r.spmd | diff - jax.out"""
import numpy as np, sys
rng = np.random.default_rng(int(sys.argv[1]))
spmd, py = [], ["import os", "os.environ.setdefault('XLA_FLAGS','--xla_force_host_platform_device_count=8')",
    "import jax, jax.numpy as jnp, numpy as np", "U=lambda k,s: jax.random.uniform(jax.random.key(k), s, jnp.float32, -1.0, 1.0)", "A=np.asarray"]
key = 100
for t in range(int(sys.argv[2])):
    cls = ["nn", "nt", "bnt"][t % 3]
    M = int(np.exp(rng.uniform(np.log(2), np.log(300)))); N = int(np.exp(rng.uniform(np.log(2), np.log(600))))
    K = int(np.exp(rng.uniform(np.log(200), np.log(6000))))
    B = int(rng.integers(2, 4))
    i = int(rng.integers(0, M)); j0 = max(0, N - 8) if rng.integers(0, 2) else 0; j1 = min(N, j0 + 8)
    k1, k2 = key, key + 1; key += 2
    if cls == "nn":
        spmd += [f"let a{t} = uniform(key({k1}), [{M}, {K}], -1.0, 1.0)", f"let b{t} = uniform(key({k2}), [{K}, {N}], -1.0, 1.0)", f"print((a{t} @ b{t})[{i}, {j0}:{j1}])"]
        py += [f"a, b = U({k1}, ({M}, {K})), U({k2}, ({K}, {N}))", f"print(A((a @ b)[{i}, {j0}:{j1}]))"]
    elif cls == "nt":  # grad's dA = g @ s.T: z [M, N'] @ s [N', K'] -> dz [M, N'] contracting K'
        spmd += [f"let a{t} = uniform(key({k1}), [{M}, {N}], -1.0, 1.0)", f"let b{t} = uniform(key({k2}), [{N}, {K}], -1.0, 1.0)", f"print(grad(fn (z) = sum(sin(z @ b{t})))(a{t})[{i}, {j0}:{j1}])"]
        py += [f"a, b = U({k1}, ({M}, {N})), U({k2}, ({N}, {K}))", f"print(A(jax.grad(lambda z: jnp.sum(jnp.sin(z @ b)))(a)[{i}, {j0}:{j1}]))"]
    else:
        spmd += [f"let a{t} = uniform(key({k1}), [{B}, {M}, {N}], -1.0, 1.0)", f"let b{t} = uniform(key({k2}), [{B}, {N}, {K}], -1.0, 1.0)", f"print((vmap (z in a{t}, y in b{t}) {{ grad(fn (v) = sum(sin(v @ y)))(z) }})[{B-1}, {i}, {j0}:{j1}])"]
        py += [f"a, b = U({k1}, ({B}, {M}, {N})), U({k2}, ({B}, {N}, {K}))", f"print(A(jax.vmap(lambda z, y: jax.grad(lambda v: jnp.sum(jnp.sin(v @ y)))(z))(a, b)[{B-1}, {i}, {j0}:{j1}]))"]
    print(f"# {t} {cls} M={M} K={K} N={N} B={B}", file=sys.stderr)
open("r.spmd", "w").write("\n".join(spmd) + "\n")
open("r.py", "w").write("\n".join(py) + "\n")
