"""JAX's compile time for the equivalent of each spec example (tests/spec/*.spmd).

For each example, every pmap/vmap/jit function it needs is traced, lowered and compiled
ahead of time (`.lower(args).compile()`), at the example's own shapes, and nothing runs:
the counterpart of spmdrun's whole compile. Tracing and compile caches are cold per example
(each function is a fresh Python object). Used by baselines.py (`compile_examples`), which
bench/run starts once per example and sample (`only=NAME`): each sample is the example's
first compile in a fresh process, after the backend's start-up, as spmdrun's is. (Examples
run one after another in one process share JAX's warmed caches and the process's state, and
pool_map's time moved between 179 and 313 ms from one bench run to the next that way.)
"""
import time

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax


def _aot(fn, *args):
    """Lowers and compiles fn for args; returns the compiled executable."""
    return fn.lower(*args).compile()


def _squares():
    _aot(jax.pmap(lambda x: x ** 2), jnp.arange(7))
    x = jnp.array([1.0, 2.0, 3.0])
    _aot(jax.jit(jax.vmap(lambda a, b: a + b)), x, x)
    _aot(jax.pmap(lambda a, b: a + b), x, x)
    _aot(jax.pmap(lambda v: v ** 2), jnp.arange(8))


def _normalize():
    x = jnp.arange(4.0)
    _aot(jax.pmap(lambda v: v / lax.psum(v, "i"), axis_name="i"), x)
    _aot(jax.pmap(lambda v: v / lax.psum(v, "i"), axis_name="i"), x)


def _nested_normalize():
    # Nested jax.pmap fails in this JAX (a context-mesh error), so this is the shard_map
    # form over a 4 x 2 mesh, which is how JAX now writes a nest of named axes.
    from jax.sharding import PartitionSpec as P

    def body(v):
        return (v / lax.psum(v, "rows"), v / lax.psum(v, "cols"), v / lax.psum(v, ("rows", "cols")))
    mesh = jax.make_mesh((4, 2), ("rows", "cols"))
    spec = P("rows", "cols")
    fn = jax.jit(jax.shard_map(body, mesh=mesh, in_specs=spec, out_specs=(spec, spec, spec)))
    _aot(fn, jax.device_put(jnp.arange(8.0).reshape(4, 2), jax.NamedSharding(mesh, spec)))


def _pool_map():
    def function(x):
        return jnp.sum(jnp.sin(x * jnp.arange(1.0, 101.0, 1.0)))
    inputs = jnp.linspace(0.0, 1.0, 10000)
    _aot(jax.pmap(jax.vmap(function)), inputs.reshape(8, -1))
    _aot(jax.jit(jax.vmap(function)), inputs)


def _random_matmul():
    keys = jax.random.split(jax.random.PRNGKey(0), 8)
    mats = jax.ShapeDtypeStruct((8, 5000, 6000), jnp.float32)
    _aot(jax.pmap(lambda k: jax.random.normal(k, (5000, 6000))), keys)
    _aot(jax.pmap(lambda m: m @ m.T), mats)
    _aot(jax.pmap(jnp.mean), jax.ShapeDtypeStruct((8, 5000, 5000), jnp.float32))


def _rule30():
    to_right = [(j, (j + 1) % 8) for j in range(8)]
    to_left = [((j + 1) % 8, j) for j in range(8)]

    def step(s):
        b = jnp.concatenate([lax.ppermute(s[-1:], "i", to_right), s, lax.ppermute(s[:1], "i", to_left)])
        return b[:-2] ^ (b[1:-1] | b[2:])
    _aot(jax.pmap(step, axis_name="i"), jnp.zeros((8, 5), bool))


def _train_mlp():
    def predict(params, x):
        w1, b1, w2, b2 = params
        return jax.nn.relu(x @ w1 + b1) @ w2 + b2

    def loss(params, x, y):
        logits = predict(params, x)
        logp = logits - jax.nn.logsumexp(logits, axis=1, keepdims=True)
        return -jnp.mean(jnp.sum(logp * jax.nn.one_hot(y, 2), axis=1))

    def step(params, xs, ys):
        l, g = jax.value_and_grad(loss)(params, xs, ys)
        g = jax.tree_util.tree_map(lambda t: lax.pmean(t, "i"), g)
        return lax.pmean(l, "i"), jax.tree_util.tree_map(lambda p, d: p - 0.5 * d, params, g)
    params = (jnp.zeros((2, 32)), jnp.zeros(32), jnp.zeros((32, 2)), jnp.zeros(2))
    x, y = jnp.zeros((8, 64, 2)), jnp.zeros((8, 64), jnp.int32)
    _aot(jax.pmap(step, axis_name="i", in_axes=(None, 0, 0)), params, x, y)
    _aot(jax.pmap(lambda xs, ys: jnp.mean((jnp.argmax(predict(params, xs), axis=1) == ys)
                                          .astype(jnp.float32)), in_axes=(0, 0)), x, y)


def _vmap_vs_pmap():
    def f(x, y):
        return jnp.tanh(jnp.dot(x, y))
    xs, ys = jnp.ones((8, 2, 3)), jnp.ones((8, 3, 4))
    _aot(jax.jit(jax.vmap(f)), xs, ys)
    _aot(jax.pmap(f), xs, ys)


def _grad_nested():
    x = jnp.arange(8.0).reshape(4, 2)

    def f(xr):
        y = jnp.sin(xr)

        def g(w):
            return jnp.sum(jax.pmap(lambda z: jnp.cos(z) * jnp.tan(jnp.sum(y)) * jnp.sum(jnp.tanh(xr)))(w))
        return jax.grad(g)(xr)
    _aot(jax.pmap(f), x)
    _aot(jax.jit(jax.grad(lambda x: jnp.sum(jax.pmap(f)(x)))), x)


EXAMPLES = {"grad_nested": _grad_nested, "nested_normalize": _nested_normalize,
            "normalize": _normalize, "pool_map": _pool_map, "random_matmul": _random_matmul,
            "rule30": _rule30, "squares": _squares, "train_mlp": _train_mlp,
            "vmap_vs_pmap": _vmap_vs_pmap}


def compile_examples(sizes):
    """{"examples": {name: seconds or "error: ..."}}: JAX's AOT compile time per example;
    sizes["only"] (names joined by commas) picks some, in that order (default: all)."""
    names = sizes["only"].split(",") if sizes.get("only") else list(EXAMPLES)
    unknown = [n for n in names if n not in EXAMPLES]
    if unknown:
        raise ValueError(f"no spec example {unknown[0]!r} in compile_examples.py")
    jnp.zeros(1).block_until_ready()  # backend start-up is not the examples' cost
    out = {}
    for name in names:
        fn = EXAMPLES[name]
        t0 = time.perf_counter()
        try:
            fn()
            out[name] = time.perf_counter() - t0
        except Exception as e:  # record what JAX cannot do, keep going
            why = "JAX cannot nest pmap; " if "context mesh" in str(e) else ""
            out[name] = f"error: {why}{type(e).__name__}: {str(e).splitlines()[0][:120]}"
    return {"examples": out, "numpy_version": np.__version__}
