import os
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import numpy as np, jax, jax.numpy as jnp
jax.config.update("jax_enable_x64", False)
def fmt(x):
    if isinstance(x, tuple):
        return "(" + ", ".join(fmt(e) for e in x) + ("," if len(x) == 1 else "") + ")"
    if isinstance(x, (bool, int, str)):
        return str(x)
    if hasattr(x, "dtype") and jnp.issubdtype(x.dtype, jax.dtypes.prng_key):
        return str(x)
    return str(np.asarray(jnp.asarray(x)))
def P(*xs):
    print(*[fmt(x) for x in xs])
def pmap2(f, xs, r, c):
    # nested pmaps over axes i (size r) and j (size c): a shard_map over an r x c mesh of
    # devices (JAX 0.10's pmap is built on shard_map and does not nest)
    from jax.sharding import PartitionSpec as PS, NamedSharding
    mesh = jax.make_mesh((r, c), ("i", "j"), devices=jax.devices()[:r * c])
    xs = jax.device_put(xs, NamedSharding(mesh, PS("i", "j")))
    g = lambda b: jax.tree.map(lambda y: y[None, None], f(b[0, 0]))
    return jax.shard_map(g, mesh=mesh, in_specs=PS("i", "j"), out_specs=PS("i", "j"),
                         check_vma=False)(xs)
def loss(params, x, t):
    w1, b1, w2, b2 = params
    h = jnp.tanh(x @ w1 + b1)
    z = h @ w2 + b2
    return 0.5 * jnp.sum((z - t) ** 2) / len(t)
v0 = jax.random.normal(jax.random.key(7), (256,))[214:].reshape((7, 6)) * 0.3
v1 = jax.random.normal(jax.random.fold_in(jax.random.key(407818), 1), (6,)) * 0.1
v2 = jnp.asarray(np.array([0.049865998327732086, -0.12601099908351898, -0.02407499961555004, 0.1720000058412552, -0.03122599981725216, 0.05972699820995331, -0.21799999475479126, -0.23449799418449402, 0.07000000029802322, 0.16152900457382202, 0.020999999716877937, -0.12980599701404572], dtype=np.float32)).reshape((6, 2))
v3 = jnp.asarray(np.array([0.023000000044703484, 7.999999979801942e-06], dtype=np.float32))
lr = 0.3
params = (v0, v1, v2, v3)
v4 = jnp.asarray(np.array([-0.656000018119812, -0.28999999165534973, 0.48764100670814514, -0.7268379926681519, -0.7599999904632568, -0.020741000771522522, -0.7699999809265137, 0.43539801239967346, -0.36411601305007935, 0.6489999890327454, -0.41600000858306885, 0.7900000214576721, -0.9201580286026001, 0.4699999988079071, -0.13600000739097595, -0.05000000074505806, -0.12720799446105957, 0.4480000138282776, -0.41999998688697815, -0.2667909860610962, 0.2800000011920929, -0.7799999713897705, 0.8690000176429749, 0.8659999966621399, 0.10000000149011612, -0.6660000085830688, -0.9675130248069763, 0.07999999821186066, -0.3400000035762787, -0.30799999833106995, -0.09200000017881393, -0.2800000011920929, -0.2240000069141388, -0.3400000035762787, -0.9404680132865906, 0.5176249742507935, -0.47699999809265137, 0.46605899930000305, -0.4201290011405945, -0.6499999761581421, -0.949999988079071, -0.07999999821186066, 0.15921099483966827, -0.725521981716156, 0.3861039876937866, -0.9490000009536743, 0.8209999799728394, 0.5299999713897705, -0.9377009868621826, -0.6700000166893005, -0.49399998784065247, -0.5688530206680298, -0.5799999833106995, 0.029999999329447746, -0.27000001072883606, 0.4099999964237213, -0.6499999761581421, 0.3400000035762787, 0.5850920081138611, -0.5, -0.07000000029802322, 0.6800000071525574, 0.49000000953674316, -0.8830000162124634, -0.05999999865889549, -0.8259999752044678, 0.8583890199661255, -0.8299999833106995, -0.1110209971666336, 0.36000001430511475], dtype=np.float32)).reshape((10, 7))
v5 = jnp.asarray(np.array([0.6100000143051147, 0.7420889735221863, 0.9700000286102295, -0.05999999865889549, -0.5080000162124634, -0.45261698961257935, 0.21786800026893616, 0.5109999775886536, -0.5069310069084167, -0.9300000071525574, -0.24753600358963013, -0.6430000066757202, -0.5600000023841858, 0.8899999856948853, 0.46000000834465027, 0.09399999678134918, 0.9200000166893005, 0.7398729920387268, 0.25, -0.11400000005960464], dtype=np.float32)).reshape((10, 2))
pe = jax.jit(lambda params, xs, ts: jax.vmap(lambda x, t: jax.grad(loss)(params, x.reshape(1, 7), t.reshape((1, 2))))(xs, ts))
for step in range(7):
    g = jax.vmap(lambda x, t: jax.grad(loss)(params, x.reshape(1, 7), t.reshape((1, 2))))(v4, v5)
    params = jax.tree.map(lambda p, d: p - lr * jnp.mean(d, axis=0), params, g)
    if step % 3 == 0: P(step, loss(params, v4, v5))
P(loss(params, v4, v5))
P((params[0]).shape)
P(params[0])
P(jnp.sum((params[0]) * 0 - 1))
P((params[1]).shape)
P(params[1])
P(jnp.sum((params[1]) * 0 - 1))
P((params[2]).shape)
P(params[2])
P(jnp.sum((params[2]) * 0 - 1))
P((params[3]).shape)
P(params[3])
P(jnp.sum((params[3]) * 0 - 1))
