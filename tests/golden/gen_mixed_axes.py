#!/usr/bin/env python3
"""Writes vmap_mixed_axes.out, vmap_mixed_a2a.out, vmap_mixed_grad.out and
pmap_tuple_order.out: what JAX gives for the collectives of those programs over tuples
that mix pmap and vmap axes, or name pmap axes out of the nest's order.

spmdrun numbers the product of a tuple of axes row-major in the tuple's order (as
jax.lax.axis_index does). The reference here runs each program's body under
jax.shard_map over a mesh with one axis per pmap/vmap axis of the program's nest, the
tuple's axes first and in the tuple's order, so every JAX collective over the tuple
(ppermute too, whose lowering numbers a group in mesh order) numbers it that way. The
inputs' leading (nest) dimensions are transposed into mesh order and the results back.
Needs JAX on 8 host devices (not needed to run the tests):
`/path/to/jax/python gen_mixed_axes.py`."""
import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import Mesh, PartitionSpec as P  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
lax = jax.lax


def run(x, nest, axes, body, to_numpy=True):
    """x: leading dims = the nest's axes (names `nest`, outermost first); body(v) runs on
    one replica's slice v with the collectives over the tuple `axes`."""
    sizes = dict(zip(nest, x.shape[:len(nest)]))
    order = list(axes) + [a for a in nest if a not in axes]
    perm = [nest.index(a) for a in order]
    n = len(nest)
    xt = jnp.transpose(x, perm + list(range(n, x.ndim)))
    devs = np.array(jax.devices()[:int(np.prod([sizes[a] for a in order]))])
    mesh = Mesh(devs.reshape([sizes[a] for a in order]), tuple(order))

    def f(v):
        r = jnp.asarray(body(v.reshape(v.shape[n:])))
        return r.reshape((1,) * n + r.shape)

    spec = P(*order)
    out = jax.jit(jax.shard_map(f, mesh=mesh, in_specs=spec, out_specs=spec, check_vma=False))(xt)
    back = [order.index(a) for a in nest]
    out = jnp.transpose(out, back + list(range(n, out.ndim)))
    return np.asarray(out) if to_numpy else out


def arange(n, shape):
    return jnp.arange(float(n), dtype=jnp.float32).reshape(shape)


def axes_out():
    x = arange(24, [2, 4, 3])
    shift = [(k, (k + 3) % 8) for k in range(8)]
    ij = ["i", "j"]
    out = [
        run(x, ij, ("i", "j"), lambda v: lax.axis_index(("i", "j"))),
        run(x, ij, ("j", "i"), lambda v: lax.axis_index(("j", "i"))),
        run(x, ij, ("i", "j"), lambda v: lax.ppermute(v, ("i", "j"), shift)),
        run(x, ij, ("j", "i"), lambda v: lax.ppermute(v, ("j", "i"), shift)),
        run(x, ij, ("i", "j"), lambda v: lax.ppermute(v, ("i", "j"), [(0, 5), (5, 2), (7, 0), (3, 3)])),
    ]
    y = arange(24, [4, 2, 3])
    ji = ["j", "i"]
    out += [
        run(y, ji, ("j", "i"), lambda v: lax.ppermute(v, ("j", "i"), shift)),
        run(y, ji, ("i", "j"), lambda v: lax.ppermute(v, ("i", "j"), shift)
            + lax.axis_index(("i", "j")).astype(jnp.float32)),
    ]
    z = arange(16, [2, 2, 2, 2])
    rot = [(k, (k + 1) % 8) for k in range(8)]
    rcj = ["r", "c", "j"]
    out += [
        run(z, rcj, ("r", "j", "c"), lambda v: lax.axis_index(("r", "j", "c"))),
        run(z, rcj, ("c", "j", "r"), lambda v: lax.axis_index(("c", "j", "r"))),
        run(z, rcj, ("r", "j", "c"), lambda v: lax.ppermute(v, ("r", "j", "c"), rot)),
        run(z, rcj, ("c", "j", "r"), lambda v: lax.ppermute(v, ("c", "j", "r"), rot)),
    ]
    ijk = ["i", "j", "k"]
    out += [
        run(z, ijk, ("k", "i", "j"), lambda v: lax.axis_index(("k", "i", "j"))),
        run(z, ijk, ("k", "i", "j"), lambda v: lax.ppermute(v, ("k", "i", "j"), rot)),
    ]
    ks = jax.random.key_data(jax.random.split(jax.random.PRNGKey(0), 8)).reshape(2, 4, 2)
    out.append(run(ks, ij, ("j", "i"), lambda v: lax.ppermute(v, ("j", "i"), shift)).astype(np.uint32))
    return out


def a2a_out():
    x = arange(128, [2, 4, 8, 2])
    w = arange(256, [2, 4, 2, 16])
    ij = ["i", "j"]
    out = [
        run(x, ij, ("i", "j"), lambda v: lax.all_to_all(v, ("i", "j"), 0, 1)),
        run(x, ij, ("j", "i"), lambda v: lax.all_to_all(v, ("j", "i"), 0, 0)),
        run(x, ij, ("j", "i"), lambda v: lax.all_to_all(v, ("j", "i"), 0, 1, tiled=True)),
        run(w, ij, ("i", "j"), lambda v: lax.all_to_all(v, ("i", "j"), 1, 0, tiled=True)),
        run(x, ij, ("i", "j"), lambda v: lax.psum_scatter(v, ("i", "j"))),
        run(x, ij, ("j", "i"), lambda v: lax.psum_scatter(v, ("j", "i"), scatter_dimension=0, tiled=True)),
        run(w, ij, ("j", "i"), lambda v: lax.psum_scatter(v, ("j", "i"), scatter_dimension=1, tiled=True)),
    ]
    y = arange(128, [4, 2, 8, 2])
    ji = ["j", "i"]
    out += [
        run(y, ji, ("j", "i"), lambda v: lax.all_to_all(v, ("j", "i"), 0, 1)),
        run(y, ji, ("i", "j"), lambda v: lax.psum_scatter(v, ("i", "j"))),
    ]
    z = arange(128, [2, 2, 2, 8, 2])
    rcj = ["r", "c", "j"]
    out += [
        run(z, rcj, ("r", "j", "c"), lambda v: lax.all_to_all(v, ("r", "j", "c"), 0, 1)),
        run(z, rcj, ("c", "j", "r"), lambda v: lax.all_to_all(v, ("c", "j", "r"), 0, 0, tiled=True)),
        run(z, rcj, ("c", "j", "r"), lambda v: lax.psum_scatter(v, ("c", "j", "r"))),
        run(z, rcj, ("r", "j", "c"), lambda v: lax.all_gather(v[0], ("r", "j", "c")))[1, 0, 1],
        run(z, rcj, ("c", "j", "r"), lambda v: lax.all_gather(v[0], ("c", "j", "r")))[1, 0, 1],
    ]
    ijk = ["i", "j", "k"]
    out += [
        run(z, ijk, ("k", "i", "j"), lambda v: lax.all_to_all(v, ("k", "i", "j"), 0, 1)),
        run(z, ijk, ("j", "k", "i"), lambda v: lax.psum_scatter(v, ("j", "k", "i"), tiled=True)),
    ]
    w = arange(24, [2, 4, 3])
    z2 = arange(16, [2, 2, 2, 2])
    out += [
        run(w, ij, ("i", "j"), lambda v: lax.all_gather(v, ("i", "j")))[1, 2],
        run(w, ij, ("j", "i"), lambda v: lax.all_gather(v, ("j", "i"), axis=1))[0, 3],
        run(w, ij, ("j", "i"), lambda v: lax.all_gather(v, ("j", "i"), tiled=True))[1, 1],
        run(z2, ijk, ("k", "i", "j"), lambda v: lax.all_gather(v, ("k", "i", "j"), axis=1))[1, 0, 1],
    ]
    return out


def grad_out():
    x = arange(24, [2, 4, 3])
    y = arange(128, [2, 4, 8, 2])
    shift = [(k, (k + 3) % 8) for k in range(8)]
    ij = ["i", "j"]

    def g(loss):  # each replica's gradient of its own loss
        return lambda v: jax.grad(loss)(v)

    def total(w):  # the sum of every replica's ppermute(v) * v, as one function of x
        return jnp.sum(run(w, ij, ("i", "j"), lambda v: lax.ppermute(v, ("i", "j"), shift) * v, to_numpy=False))

    return [
        run(x, ij, ("i", "j"), g(lambda w: jnp.sum(lax.ppermute(w, ("i", "j"), shift) * w))),
        run(x, ij, ("j", "i"), g(lambda w: jnp.sum(lax.ppermute(w, ("j", "i"), shift) * w))),
        run(x, ij, ("j", "i"), g(lambda w: jnp.sum(lax.ppermute(w, ("j", "i"), shift) * w))),
        run(y, ij, ("j", "i"), g(lambda w: jnp.sum(lax.all_to_all(w, ("j", "i"), 0, 0) * w))),
        run(y, ij, ("i", "j"), g(lambda w: jnp.sum(lax.psum_scatter(w, ("i", "j")) ** 2))),
        jax.grad(total)(x),
    ]


def tuple_order_out():
    x = arange(16, [2, 4, 2])
    y = arange(128, [2, 4, 8, 2])
    rc, cr = ["r", "c"], ("c", "r")
    shift = [(k, (k + 3) % 8) for k in range(8)]
    return [
        run(x, rc, cr, lambda v: lax.axis_index(cr)),
        run(x, rc, cr, lambda v: lax.all_gather(v, cr))[1, 2],
        run(x, rc, cr, lambda v: lax.all_gather(v, cr, tiled=True))[0, 3],
        run(x, rc, cr, lambda v: lax.ppermute(v, cr, shift)),
        run(y, rc, cr, lambda v: lax.all_to_all(v, cr, 0, 1)),
        run(y, rc, cr, lambda v: lax.psum_scatter(v, cr)),
        run(y, rc, cr, lambda v: lax.psum_scatter(v, cr, scatter_dimension=0, tiled=True)),
    ]


def write(name, arrays):
    with open(os.path.join(HERE, name), "w") as f:
        f.write("\n".join(str(np.asarray(a)) for a in arrays) + "\n")


write("vmap_mixed_axes.out", axes_out())
write("vmap_mixed_a2a.out", a2a_out())
write("vmap_mixed_grad.out", grad_out())
write("pmap_tuple_order.out", tuple_order_out())
