// gemm_bench: one core's f32 GEMM rate for the BLAS choices of issue 15 (bench/notes.md,
// 2026-11-24 gemm12). Not part of the build; compile by hand, from the repository root
// after a Release build:
//   g++ -O2 -std=c++20 -I/usr/include/x86_64-linux-gnu/blis-serial bench/gemm_bench.cpp \
//     build-release/libspmdruntime.a /usr/lib/x86_64-linux-gnu/blis-serial/libblis.a \
//     -lm -lpthread -ldl -o /tmp/gemm_bench
//   taskset -c 1 /tmp/gemm_bench VARIANT[,VARIANT...] M N K TA TB [REPS [COPIES]]
// C (M x N, row-major) = A B, A M x K row-major (TA=1: stored K x M), B K x N row-major
// (TB=1: stored N x K). COPIES > 1 cycles through that many operand sets per variant
// (cold caches, as 4 device fibers per core; each variant has its own sets, so that none
// finds the operands that the one before it just loaded). Several variants alternate call
// by call in one process (A B A B ...), so that a busy machine slows them alike. Each variant's line gives the
// median and best wall time and the median thread CPU time (what compares on a shared
// machine) over REPS x COPIES calls, in ms and GFLOP/s.
// VARIANTs:
//   spmd             spmd_cpu_gemm, as spmdrun calls it (KC 256, no sup, beta 0, -0s made
//                    +0 tile by tile in the micro-kernel)
//   spmd-chain       spmd_cpu_gemm with one slice over all of k (SPMD_GEMM_ONE_CHAIN, K <=
//                    4096: XLA's one FMA chain on an AVX2 host; its own context, MC 24)
//   spmd-pass        spmd_cpu_gemm as it was before that: blis-pin, then one pass over C
//   blis             BLIS's own defaults (its context and blocking, sup on)
//   blis-conv        BLIS's own context, sup off (the conventional path)
//   blis-pin:MC:NC[:ARCH[:KC]]  KC 256 and sup off as CpuGemm.cpp, beta 0, no -0 pass,
//                    with MC and NC set (0: the configuration's), in BLIS's configuration
//                    ARCH (skx, zen3, ...; default: the one BLIS picks), KC if given
//   openblas         OpenBLAS (its own blocking) through dlopen(OPENBLAS=path to numpy's
//                    libscipy_openblas64_*.so), one thread
#include "blis.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

extern "C" void spmd_cpu_gemm(int32_t dtype, int64_t batch, int64_t m, int64_t n, int64_t k,
                              int32_t order, const void *a, int32_t ta, const void *b,
                              int32_t tb, void *c);  // order: spmd_gemm_order (spmdrt.h)

namespace {

using CblasSgemm = void (*)(int, int, int, long, long, long, float, const float *, long,
                            const float *, long, float, float *, long);

CblasSgemm openblas() {
  static CblasSgemm f = [] {
    const char *path = std::getenv("OPENBLAS");
    void *h = path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : nullptr;
    if (!h) std::fprintf(stderr, "set OPENBLAS=path of libscipy_openblas64_*.so\n"), std::exit(1);
    auto sgemm = reinterpret_cast<CblasSgemm>(dlsym(h, "scipy_cblas_sgemm64_"));
    auto threads = reinterpret_cast<void (*)(int)>(dlsym(h, "scipy_openblas_set_num_threads64_"));
    auto core = reinterpret_cast<char *(*)()>(dlsym(h, "scipy_openblas_get_corename64_"));
    if (!sgemm || !threads) std::fprintf(stderr, "no scipy_cblas_sgemm64_\n"), std::exit(1);
    threads(1);
    if (core) std::fprintf(stderr, "openblas core: %s\n", core());
    return sgemm;
  }();
  return f;
}

struct Variant {
  std::string name, kind;
  std::unique_ptr<cntx_t> ctx;  // blis-pin's
  std::vector<double> wall, cpu;
};

/// BLIS's configuration named `name` (skx, zen3, haswell, ...), or null.
cntx_t *namedContext(const char *name) {
  for (int id = 0; id < BLIS_NUM_ARCHS; ++id)
    if (std::strcmp(bli_arch_string(arch_t(id)), name) == 0)
      return bli_gks_lookup_nat_cntx(arch_t(id));
  return nullptr;
}

std::unique_ptr<cntx_t> pinnedContext(long mc, long nc, const char *arch = "", long kc = 256) {
  cntx_t *base = *arch ? namedContext(arch) : bli_gks_query_cntx();
  if (!base) std::fprintf(stderr, "no BLIS configuration %s\n", arch), std::exit(1);
  auto ctx = std::make_unique<cntx_t>(*base);
  auto set = [&](bszid_t id, long v) {
    blksz_t *b = bli_cntx_get_blksz(id, ctx.get());
    bli_blksz_set_def(v, BLIS_FLOAT, b);
    bli_blksz_set_max(v, BLIS_FLOAT, b);
  };
  set(BLIS_KC, kc);
  if (mc) set(BLIS_MC, mc);
  if (nc) set(BLIS_NC, nc);
  return ctx;
}

/// The pass over C that spmd_cpu_gemm made before (the same code as then).
__attribute__((optimize("vect-cost-model=dynamic"))) void clearNegativeZeros(float *c, int64_t n) {
  uint32_t *u = reinterpret_cast<uint32_t *>(c);
  for (int64_t i = 0; i < n; ++i) u[i] = u[i] == 0x80000000u ? 0u : u[i];
}

double cpuMs() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 7) {
    std::fprintf(stderr, "usage: gemm_bench VARIANT[,VARIANT...] M N K TA TB [REPS [COPIES]]\n");
    return 1;
  }
  long m = std::atol(argv[2]), n = std::atol(argv[3]), k = std::atol(argv[4]);
  bool ta = std::atoi(argv[5]), tb = std::atoi(argv[6]);
  int reps = argc > 7 ? std::atoi(argv[7]) : 20, copies = argc > 8 ? std::atoi(argv[8]) : 1;
  bli_init();
  std::vector<Variant> vs;
  std::stringstream list(argv[1]);
  for (std::string item; std::getline(list, item, ',');) {
    Variant v;
    v.name = item;
    v.kind = item.substr(0, item.find(':'));
    if (v.kind == "blis-pin") {
      long mc = 0, nc = 0, kc = 256;
      char arch[32] = "";
      std::sscanf(item.c_str(), "blis-pin:%ld:%ld:%31[a-z0-9]:%ld", &mc, &nc, arch, &kc);
      v.ctx = pinnedContext(mc, nc, arch, kc);
    } else if (v.kind == "openblas") {
      openblas();
    } else if (v.kind == "spmd-pass") {
      v.ctx = pinnedContext(0, 0);
    } else if (v.kind != "spmd" && v.kind != "spmd-chain" && v.kind != "blis" &&
               v.kind != "blis-conv") {
      std::fprintf(stderr, "unknown variant %s\n", item.c_str());
      return 1;
    }
    vs.push_back(std::move(v));
  }
  std::mt19937 gen(0);
  std::normal_distribution<float> dist;
  const int sets = copies * int(vs.size());  // variant v's copy i is set v * copies + i
  std::vector<std::vector<float>> as(sets), bs(sets), cs(sets);
  for (int i = 0; i < sets; ++i) {
    as[i].resize(m * k), bs[i].resize(k * n), cs[i].assign(m * n, 0);
    for (float &x : as[i]) x = dist(gen);
    for (float &x : bs[i]) x = dist(gen);
  }
  float one = 1, zero = 0;
  inc_t rsa = ta ? 1 : k, csa = ta ? m : 1, rsb = tb ? 1 : n, csb = tb ? k : 1;
  auto call = [&](Variant &v, int i) {
    float *a = as[i].data(), *b = bs[i].data(), *c = cs[i].data();
    rntm_t rntm;
    bli_rntm_init(&rntm);
    bli_rntm_set_num_threads(1, &rntm);
    if (v.kind == "spmd" || v.kind == "spmd-chain") {
      // SPMD_GEMM_SLICES (0) or SPMD_GEMM_ONE_CHAIN (1)
      spmd_cpu_gemm(3, 1, m, n, k, v.kind == "spmd" ? 0 : 1, a, ta, b, tb, c);
    } else if (v.kind == "openblas") {
      // CblasRowMajor 101, CblasNoTrans 111, CblasTrans 112.
      openblas()(101, ta ? 112 : 111, tb ? 112 : 111, m, n, k, 1.f, a, ta ? m : k, b, tb ? k : n,
                 0.f, c, n);
    } else {
      if (v.kind != "blis") bli_rntm_disable_l3_sup(&rntm);
      bli_sgemm_ex(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, m, n, k, &one, a, rsa, csa, b, rsb, csb,
                   &zero, c, n, 1, v.ctx.get(), &rntm);
      if (v.kind == "spmd-pass") clearNegativeZeros(c, m * n);
    }
  };
  for (size_t j = 0; j < vs.size(); ++j)
    for (int i = 0; i < copies; ++i) call(vs[j], int(j) * copies + i);  // warm up: pages, packing buffers
  for (int r = 0; r < reps; ++r)
    for (int i = 0; i < copies; ++i)
      for (size_t j = 0; j < vs.size(); ++j) {
        Variant &v = vs[j];
        auto t0 = std::chrono::steady_clock::now();
        double c0 = cpuMs();
        call(v, int(j) * copies + i);
        v.cpu.push_back(cpuMs() - c0);
        v.wall.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count());
      }
  double mf = 2.0 * double(m) * double(n) * double(k) / 1e6;
  for (Variant &v : vs) {
    std::sort(v.wall.begin(), v.wall.end());
    std::sort(v.cpu.begin(), v.cpu.end());
    double w = v.wall[v.wall.size() / 2], best = v.wall[0], c = v.cpu[v.cpu.size() / 2];
    std::printf("%-18s %4ldx%4ldx%4ld ta%d tb%d x%d: wall median %.2f ms (%.1f GFLOP/s), best "
                "%.2f (%.1f); cpu median %.2f ms (%.1f GFLOP/s)\n",
                v.name.c_str(), m, n, k, int(ta), int(tb), copies, w, mf / w, best, mf / best, c,
                mf / c);
  }
}
