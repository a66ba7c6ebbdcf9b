from conf10a_common import *
ks = R.split(R.key(120), 2)
xs = R.uniform(ks[0], (8, 25), minval=-2.0, maxval=2.0)
ys = 1.5 * xs - 0.7 + 0.2 * R.normal(ks[1], (8, 25))
sxx, sx, sxy, sy = pm(lambda x, y: (lax.psum(jnp.sum(x * x), 'i'), lax.psum(jnp.sum(x), 'i'), lax.psum(jnp.sum(x * y), 'i'), lax.psum(jnp.sum(y), 'i')), xs, ys)
nn = 200.0
det = nn * sxx[0] - sx[0] * sx[0]
slope = (nn * sxy[0] - sx[0] * sy[0]) / det
icpt = (sxx[0] * sy[0] - sx[0] * sxy[0]) / det
print(A(sxx[0]), A(sx[0]), A(sxy[0]), A(sy[0]))
print(A(slope), A(icpt))
resid = ys - (slope * xs + icpt)
print(A(jnp.mean(resid * resid)), A(jnp.sum(xs * xs)), A(jnp.mean(ys)))
