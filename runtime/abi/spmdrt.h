/* ===- spmdrt.h - the C entry points that jitted code calls -----------------===
 *
 * This is the whole contract between generated code and the runtime. The compiler
 * emits calls to these functions by name (codegen declares them with the same
 * signatures); the runtime implements them for every backend. Nothing here knows about
 * syntax, and the compiler knows nothing of threads, streams or sockets.
 *
 * Execution model
 * ---------------
 * The host function `void spmd_main(spmd_host*)` runs the top level of a script on the
 * calling thread. Host arrays are plain buffers from spmd_host_alloc. A pmap launches a
 * kernel `void k(spmd_dev*, void** ins, void** outs)` once per device of a mesh (nested
 * pmaps are flattened into one launch over a mesh of up to 8 axes; device (r, c) of an
 * R x C mesh is device r*C + c). Each device sees, for input k, either the whole host
 * array (broadcast) or its own slice along axis 0 (mapped over one mesh axis), and writes
 * its part of every output. Collectives are called by every device of a launch with the
 * same arguments, in the same order; `axes` is a bit mask over the launch's mesh axes and
 * the group of a device is the set of devices that agree with it on every axis not in the
 * mask, ordered row-major over the masked axes.
 *
 * The entry points, the dtype codes and the reduction codes are listed once, in
 * spmdrt.def; this header declares them from it (as codegen does, and the tests).
 */
#ifndef SPMDRT_H
#define SPMDRT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct spmd_host spmd_host; /* the host side of a run: devices, stats, errors */
typedef struct spmd_dev spmd_dev;   /* one device inside a launch */

typedef void (*spmd_kernel_fn)(spmd_dev *dev, void **ins, void **outs);

/* ---- launching (spmd_launch) ---------------------------------------------------- */
typedef struct spmd_launch_desc {
  spmd_kernel_fn fn;
  const char *name;          /* for --stats and --trace, e.g. "pmap i @ file.spmd:3:9" */
  int32_t mesh_rank;         /* number of mesh axes (1..8) */
  const int64_t *mesh_shape; /* sizes of the mesh axes, outermost first */
  int32_t num_in;
  void *const *in_ptrs;    /* host arrays */
  const int64_t *in_bytes; /* whole size of each input in bytes */
  const uint32_t *in_axes; /* mask of mesh axes the input is split over, row-major along
                              its leading bytes like out_axes; 0: the whole array */
  int32_t num_out;
  void *const *out_ptrs;    /* host arrays receiving the stacked results */
  const int64_t *out_bytes; /* bytes of ONE replica's result */
  const uint32_t *out_axes; /* mask of mesh axes the result is stacked over (row-major);
                               devices with a non-zero index on another axis write nothing */
} spmd_launch_desc;

/* ---- device programs (backends with their own memory: CUDA) -------------------- */
/* On a GPU, a kernel `k(spmd_dev*, void** ins, void** outs)` is a *device program*: host
 * code that runs once per logical device, on a host thread, and enqueues work on that
 * device's stream. Its ins and outs are DEVICE addresses, which it never dereferences:
 * it passes them to the device-program entry points of spmdrt.def (and to the
 * collectives, which then take device addresses too). Work is done in stream order: each call sees
 * the effects of the calls before it. The GPU kernels come from the PTX module that the host loaded
 * before the run (Host::loadKernels). On CPU devices (--split-kernels) the addresses
 * are host memory and each kernel is a host function compiled with the program
 * (Host::loadHostKernels), which spmd_kernel_launch calls in place; spmd_gemm answers
 * 1 there. */

/* The error record of a device, which its GPU kernels write when they find a dynamic
 * index out of range: the first to win atomicCAS(&flag, 0, 1) stores the index, the
 * size and `where`, the address of a NUL-terminated "file:line:col" string in the
 * kernel module's global memory (device memory on GPUs). The runtime zeroes it before
 * each launch and, when flag is set after the device program returned (on CPU devices:
 * after the kernel returned), fails the launch with the message spmd_check_error gives
 * for SPMD_INDEX_ERROR, a0 = index and a1 = size. 32 bytes; kernels receive its address. */
#define SPMD_INDEX_ERROR "index {0} is out of range for size {1}"
typedef struct spmd_kernel_error {
  uint32_t flag;
  uint32_t pad;
  int64_t index;
  int64_t size;
  uint64_t where;
} spmd_kernel_error;

/* The order in which spmd_cpu_gemm sums each C[i, j] over k (Note [BLIS order] in
 * runtime/cpu/CpuGemm.cpp; the compiler picks it, Note [XLA dot order] in
 * compiler/codegen/EmitDot.cpp):
 *   SLICES     each slice of 256 k folded with FMAs from +0 and added to C, from +0;
 *   ONE_CHAIN  one slice of all of k (k <= SPMD_GEMM_MAX_CHAIN);
 *   PAIRS      (f32, batch 1) two chains from +0, over even k and odd k (k <=
 *              SPMD_GEMM_MAX_CHAIN), added; for an odd k the last product then rounded
 *              and added;
 *   QUADS      (f32) four chains from +0, over k = 0, 1, 2, 3 (mod 4) below k - k mod 4,
 *              added as (c0 + c1) + (c2 + c3); the last k mod 4 products then rounded,
 *              summed as (p0 + p1) + p2 and that added (YNNPACK's AVX-512 tile_k 4);
 *   UNFUSED    (f32, spmd_cpu_gemm_tiles only) each product rounded, then added, in k
 *              order from +0 (YNNPACK's avx and sse2 kernels).
 * SPMD_GEMM_MAX_CHAIN is YNNPACK's: the longest k it sums without splitting (Note [XLA dot
 * order]), and so the longest one chain that spmd_cpu_gemm is asked for. */
#define SPMD_GEMM_MAX_CHAIN 4096
typedef enum spmd_gemm_order {
  SPMD_GEMM_SLICES = 0,
  SPMD_GEMM_ONE_CHAIN = 1,
  SPMD_GEMM_PAIRS = 2,
  SPMD_GEMM_QUADS = 3,
  SPMD_GEMM_UNFUSED = 4
} spmd_gemm_order;

/* ---- a hint before the run: its first host buffers --------------------------------- */
/* Not called by jitted code: what the compiler tells the runtime about a program before
 * LLVM compiles it (Note [Pre-faulting] in runtime/BufferPool.h). A plan lists the host
 * buffers the run allocates first, in the order it allocates them: `bytes` each, and
 * `freed_before`, the index in the plan of the first buffer allocated after this one is
 * freed (the plan's length or more: not freed before the plan ends). A hint: the run
 * may take fewer; it never takes these in another order. */
typedef struct spmd_buffer_hint {
  int64_t bytes;
  int64_t freed_before;
} spmd_buffer_hint;

/* ---- the codes and the entry points (spmdrt.def) ---------------------------------- */
#define SPMD_RT_DTYPE(Cxx, C, code, bytes, text) SPMD_DTYPE_##C = code,
typedef enum spmd_dtype {
#include "spmdrt.def"
} spmd_dtype;
#define SPMD_RT_REDUCE(Cxx, C, code, text) SPMD_REDUCE_##C = code,
typedef enum spmd_reduce {
#include "spmdrt.def"
} spmd_reduce;
#define SPMD_RT_FN(ret, name, params) ret name params;
// clang-format off
#define SPMD_RT_VAR(type, name) extern type name;
#include "spmdrt.def"
// clang-format on

#ifdef __cplusplus
}
#endif
#endif
