// ===- CpuGemm.h - what the CPU backend asks of spmd_cpu_gemm besides products -===//
//
// spmd_cpu_gemm itself is an entry point of the generated code (spmdrt.def); this is the
// runtime's side of it: BLIS made ready before the first product, and the memory BLIS
// packs into (Note [GEMM workspace] in CpuGemm.cpp).
#pragma once

namespace spmd::rt {

class BufferPool;

/// Initialises BLIS and spmd_cpu_gemm's contexts (once per process; later calls return
/// at once). The CPU backend calls it on an idle device thread while the host compiles,
/// so that the first product does not; spmd_cpu_gemm calls it too.
void warmCpuGemm();

/// The pool that BLIS's packing buffers and the pairs' second chain come from: 2 MiB
/// aligned huge pages for the large ones (Note [GEMM workspace]). Kept apart from
/// BufferPool::global(), whose counts are the program's buffers (--stats).
BufferPool &gemmWorkspace();

/// The name of the BLIS configuration whose kernels spmd_cpu_gemm uses ("zen3",
/// "haswell", "generic", ...; Note [BLIS on newer CPUs] in CpuGemm.cpp).
const char *cpuGemmConfiguration();

}  // namespace spmd::rt
