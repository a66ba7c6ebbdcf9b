//===- Format.h - printing arrays exactly as NumPy prints them --------------===//
//
// `print` in a .spmd script must write what `print(np.asarray(x))` writes in
// Python, byte for byte, so that outputs can be compared with JAX programs. This
// is that printer: NumPy's array2string with its default options (precision 8,
// threshold 1000, edgeitems 3, linewidth 75, floatmode 'maxprec', suppress off),
// and the str() of NumPy scalars for rank-0 arrays.
//
//===----------------------------------------------------------------------===//
#ifndef SPMD_RUNTIME_FORMAT_H
#define SPMD_RUNTIME_FORMAT_H

#include <cstdint>
#include <string>
#include <vector>

namespace spmd::rt {

/// Exactly `str(np.asarray(x))` with NumPy's default print options. `data` holds
/// the elements row-major; `dtype` is a spmd_dtype code (runtime/abi/spmdrt.def): 0 bool (1 byte
/// each), 1 i32, 2 u32, 3 f32, 4 f64, 5 key (two u32 words per element, printed
/// as the u32 array of shape [..., 2]). A rank-0 array prints as its scalar
/// (`6.0`, `3`, `True`, `1e-05`); an array with no elements as `[]`.
std::string formatArray(const void *data, int dtype, const std::vector<int64_t> &shape);

}  // namespace spmd::rt

#endif  // SPMD_RUNTIME_FORMAT_H
