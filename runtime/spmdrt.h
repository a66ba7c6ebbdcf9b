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
 * Dtype codes: 0 bool (1 byte), 1 i32, 2 u32, 3 f32, 4 f64, 5 key (8 bytes).
 * Reduction codes: 0 sum, 1 max, 2 min, 3 prod.
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

/* ---- host memory --------------------------------------------------------------- */
void *spmd_host_alloc(spmd_host *h, int64_t bytes);
/* The same, for the equation at `where` ("file:line:col"), which a failure names. */
void *spmd_host_alloc_at(spmd_host *h, int64_t bytes, const char *where);
void spmd_host_free(spmd_host *h, void *p);
/* Before the host reads a buffer that a launch wrote (a pmap result), so that a backend
 * whose devices have their own memory can gather the shards. No-op on CPU devices. */
void spmd_host_sync(spmd_host *h, void *p, int64_t bytes);
/* dst = src, whole buffers, on the host side of the program (a loop carry, say). When src
 * is a sharded result still on the devices, dst becomes one too, with the same layout:
 * the copy happens where the shards are and nothing goes through the host. */
void spmd_host_copy(spmd_host *h, void *dst, const void *src, int64_t bytes);

/* ---- launching ----------------------------------------------------------------- */
typedef struct spmd_launch_desc {
  spmd_kernel_fn fn;
  const char *name;          /* for --stats and --trace, e.g. "pmap i @ file.spmd:3:9" */
  int32_t mesh_rank;         /* number of mesh axes (1..8) */
  const int64_t *mesh_shape; /* sizes of the mesh axes, outermost first */
  int32_t num_in;
  void *const *in_ptrs;      /* host arrays */
  const int64_t *in_bytes;   /* whole size of each input in bytes */
  const uint32_t *in_axes;   /* mask of mesh axes the input is split over, row-major along
                                its leading bytes like out_axes; 0: the whole array */
  int32_t num_out;
  void *const *out_ptrs;     /* host arrays receiving the stacked results */
  const int64_t *out_bytes;  /* bytes of ONE replica's result */
  const uint32_t *out_axes;  /* mask of mesh axes the result is stacked over (row-major);
                                devices with a non-zero index on another axis write nothing */
} spmd_launch_desc;

/* Runs the kernel on every device of the mesh and returns when all have finished.
 * Returns 0, or non-zero after a device failed (the error is already recorded). */
int32_t spmd_launch(spmd_host *h, const spmd_launch_desc *d);

/* ---- inside a kernel ----------------------------------------------------------- */
int32_t spmd_dev_index(spmd_dev *d);                     /* flat device index */
int32_t spmd_axis_index(spmd_dev *d, uint32_t axes);     /* index within the group */
/* Scratch memory (device memory on GPUs), freed at the end of the launch. */
void *spmd_dev_alloc(spmd_dev *d, int64_t bytes);

void spmd_allreduce(spmd_dev *d, void *buf, int64_t count, int32_t dtype, int32_t op, uint32_t axes);
/* out = the group's inputs concatenated in group order (each `bytes` long). */
void spmd_all_gather(spmd_dev *d, const void *in, void *out, int64_t bytes, uint32_t axes);
/* pairs: npairs (source, destination) group indices; a device that receives nothing
 * gets zeros. */
void spmd_ppermute(spmd_dev *d, const void *in, void *out, int64_t bytes, uint32_t axes,
                   int32_t npairs, const int32_t *pairs);
/* in: G chunks of chunk_bytes, chunk j for member j; out: G chunks, chunk j from member j. */
void spmd_all_to_all(spmd_dev *d, const void *in, void *out, int64_t chunk_bytes, uint32_t axes);
/* in: G chunks of `count` elements; out: the elementwise reduction over the group of
 * chunk `my group index`. */
void spmd_reduce_scatter(spmd_dev *d, const void *in, void *out, int64_t count, int32_t dtype,
                         int32_t op, uint32_t axes);

/* ---- device programs (backends with their own memory: CUDA) -------------------- */
/* On a GPU, a kernel `k(spmd_dev*, void** ins, void** outs)` is a *device program*: host
 * code that runs once per logical device, on a host thread, and enqueues work on that
 * device's stream. Its ins and outs are DEVICE addresses, which it never dereferences:
 * it passes them to the entry points below (and to the collectives above, which then
 * take device addresses too). Work is done in stream order: each call sees the effects
 * of the calls before it. The GPU kernels come from the PTX module that the host loaded
 * before the run (Host::loadKernels). On CPU devices (--split-kernels) the addresses
 * are host memory and each kernel is a host function compiled with the program
 * (Host::loadHostKernels), which spmd_kernel_launch calls in place; spmd_gemm answers
 * 1 there. */

/* The error record of a device, which its GPU kernels write when they find a dynamic
 * index out of range: the first to win atomicCAS(&flag, 0, 1) stores the index, the
 * size and `where`, the address of a NUL-terminated "file:line:col" string in the
 * kernel module's global memory (device memory on GPUs). The runtime zeroes it before
 * each launch and, when flag is set after the device program returned (on CPU devices:
 * after the kernel returned), fails the launch with the message spmd_index_error gives.
 * 32 bytes; kernels receive its address. */
typedef struct spmd_kernel_error {
  uint32_t flag;
  uint32_t pad;
  int64_t index;
  int64_t size;
  uint64_t where;
} spmd_kernel_error;

/* Launches kernel `name` of the loaded kernel module on the device's stream over n
 * work items. The kernel is a grid-stride loop, so any grid covers them; the runtime
 * picks one (256 threads per block, min(ceil(n/256), 8 * SM count) blocks, at least
 * 1). `params` holds nparams pointers to the argument values, as cuLaunchKernel's
 * kernelParams. The kernel's PTX signature has two leading parameters the runtime
 * supplies itself: the u64 address of the device's spmd_kernel_error and the u64 n. */
void spmd_kernel_launch(spmd_dev *d, const char *name, int64_t n, int32_t nparams, void **params);
/* dst = src (bytes), two buffers of this device, in stream order. */
void spmd_dev_copy(spmd_dev *d, void *dst, const void *src, int64_t bytes);
/* The `bytes` (1, 4 or 8) at device address p, zero-extended, after the work before
 * it (a predicate read back by the device program: a loop condition, say). */
int64_t spmd_dev_read(spmd_dev *d, const void *p, int32_t bytes);
/* Row-major batched C[i] = A[i] @ B[i] (A: m x k, B: k x n, C: m x n; batches
 * contiguous) with the device's BLAS, dtype 3 (f32) or 4 (f64), in stream order.
 * Returns 0 when done, 1 when no BLAS is available or the dtype (or a size) is not
 * supported: the caller then runs its own kernel instead. */
int32_t spmd_gemm(spmd_dev *d, int32_t dtype, int64_t batch, int64_t m, int64_t n, int64_t k,
                  const void *a, const void *b, void *c);

/* ---- errors and host effects --------------------------------------------------- */
/* Records a run-time error (with its source location text) and stops the run: on the
 * host it does not return; on a device it unwinds that launch (the other devices are
 * released from collectives) and spmd_launch returns non-zero. */
void spmd_fail(spmd_host *h, spmd_dev *d, const char *message);
/* A dynamic index out of range: `where` is "file:line:col". */
void spmd_index_error(spmd_host *h, spmd_dev *d, int64_t index, int64_t size, const char *where);

/* ---- interrupts (Ctrl-C) -------------------------------------------------------- */
/* Non-zero once the user asked the run to stop (the command line sets it from its SIGINT
 * handler; Runtime.h's requestInterrupt). Generated code reads it with an atomic
 * (monotonic) 32-bit load at the top of every iteration of a for loop, on the host, in
 * CPU kernels and in device programs, and calls spmd_poll when it is non-zero: one
 * load and one rarely taken branch per iteration. GPU kernels never read it: a single
 * kernel, like any single operation, runs to its end. */
extern int32_t spmd_interrupt_requested;
/* When an interrupt is requested, stops the run as spmd_fail does, with the message
 * "interrupted" (a device unwinds its launch and the other devices are released from
 * collectives); otherwise returns. */
void spmd_poll(spmd_host *h, spmd_dev *d);

/* Printing: the host prints NumPy-style. */
void spmd_print_str(spmd_host *h, const char *s);
void spmd_print_array(spmd_host *h, const void *data, int32_t dtype, int32_t rank, const int64_t *shape);
void spmd_print_render(spmd_host *h, const uint8_t *data, int64_t n, const char *on, const char *off);
void spmd_print_end(spmd_host *h); /* ends the line */
/* assert_close: fails the run with a message naming `where` when not close. */
void spmd_assert_close(spmd_host *h, const void *a, const void *b, int32_t dtype, int64_t n,
                       double rtol, double atol, const char *where);

#ifdef __cplusplus
}
#endif
#endif
