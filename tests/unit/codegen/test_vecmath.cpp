// ===- test_vecmath.cpp - the f32 transcendental emitters: accuracy, vector code =//
//
// JIT-compiles `out[i] = f(a[i], b[i])` loops built from compiler/codegen/VecMath.h,
// optimised by the O2 pipeline for the host CPU (as the JIT does), and checks
//  - that the loop vectorised: the optimised IR has <N x float> arithmetic and no
//    libm call;
//  - accuracy against long double libm on ~1e5 inputs per function (random bit
//    patterns over the whole float range, dense samples of the interesting range, and
//    the special values nan, +-inf, +-0, subnormals, huge arguments), in ulps of the
//    correctly rounded result, NaN/inf/zero results (with sign) exactly.
#include "codegen/ThreefryEmit.h"
#include "codegen/VecMath.h"

#include <catch2/catch.hpp>

#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <regex>

using namespace llvm;
namespace cg = spmd::codegen;

namespace {

using Emit = std::function<Value *(IRBuilderBase &, Value *, Value *)>;
using Kernel = void (*)(const float *a, const float *b, float *out, int64_t n);

/// A compiled loop `for i < n: out[i] = emit(a[i], b[i])` and its optimised IR.
struct Compiled {
  Kernel fn;
  std::string ir;
};

/// Optimises `mod` with the O2 pipeline for this machine, as codegen's JIT does (so the
/// vectoriser sees the host's vector width); returns the machine's description.
orc::JITTargetMachineBuilder optimizeForHost(Module &mod) {
  static bool init = (InitializeNativeTarget(), InitializeNativeTargetAsmPrinter(), true);
  (void)init;
  auto jtmb = cantFail(orc::JITTargetMachineBuilder::detectHost());
  jtmb.setCPU(sys::getHostCPUName().str());
  auto tm = cantFail(jtmb.createTargetMachine());
  mod.setDataLayout(tm->createDataLayout());
  mod.setTargetTriple(tm->getTargetTriple().str());
  LoopAnalysisManager lam;
  FunctionAnalysisManager fam;
  CGSCCAnalysisManager cgam;
  ModuleAnalysisManager mam;
  PassBuilder pb(tm.get());
  cg::registerVecMathPasses(pb);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.buildPerModuleDefaultPipeline(OptimizationLevel::O2).run(mod, mam);
  return jtmb;
}

Compiled compileLoop(const Emit &emit) {
  auto ctx = std::make_unique<LLVMContext>();
  auto mod = std::make_unique<Module>("vecmath_test", *ctx);
  LLVMContext &c = *ctx;
  Type *ptr = PointerType::getUnqual(c), *i64 = Type::getInt64Ty(c), *f32 = Type::getFloatTy(c);
  auto *fn = Function::Create(FunctionType::get(Type::getVoidTy(c), {ptr, ptr, ptr, i64}, false),
                              Function::ExternalLinkage, "kernel", *mod);
  for (unsigned k = 0; k < 3; ++k) fn->addParamAttr(k, Attribute::NoAlias);
  auto *entry = BasicBlock::Create(c, "entry", fn), *loop = BasicBlock::Create(c, "loop", fn),
       *exit = BasicBlock::Create(c, "exit", fn);
  IRBuilder<> b(entry);
  b.CreateCondBr(b.CreateICmpSGT(fn->getArg(3), b.getInt64(0)), loop, exit);
  b.SetInsertPoint(loop);
  PHINode *i = b.CreatePHI(i64, 2);
  i->addIncoming(b.getInt64(0), entry);
  Value *x = b.CreateLoad(f32, b.CreateGEP(f32, fn->getArg(0), i));
  Value *y = b.CreateLoad(f32, b.CreateGEP(f32, fn->getArg(1), i));
  b.CreateStore(emit(b, x, y), b.CreateGEP(f32, fn->getArg(2), i));
  Value *next = b.CreateAdd(i, b.getInt64(1), "", true, true);
  i->addIncoming(next, loop);
  b.CreateCondBr(b.CreateICmpSLT(next, fn->getArg(3)), loop, exit);
  b.SetInsertPoint(exit);
  b.CreateRetVoid();
  REQUIRE_FALSE(verifyModule(*mod, &errs()));

  auto jtmb = optimizeForHost(*mod);
  Compiled out;
  raw_string_ostream os(out.ir);
  mod->print(os, nullptr);

  static std::vector<std::unique_ptr<orc::LLJIT>> jits;  // kept alive for the test run
  auto jit = cantFail(orc::LLJITBuilder().setJITTargetMachineBuilder(jtmb).create());
  cantFail(jit->addIRModule(orc::ThreadSafeModule(std::move(mod), std::move(ctx))));
  out.fn = cantFail(jit->lookup("kernel")).toPtr<Kernel>();
  jits.push_back(std::move(jit));
  return out;
}

Emit unary(Value *(*f)(IRBuilderBase &, Value *)) {
  return [f](IRBuilderBase &b, Value *x, Value *) { return f(b, x); };
}
Value *sinCpu(IRBuilderBase &b, Value *x) { return cg::emitSinF32(b, x); }
Value *cosCpu(IRBuilderBase &b, Value *x) { return cg::emitCosF32(b, x); }
Value *tanCpu(IRBuilderBase &b, Value *x) { return cg::emitTanF32(b, x); }
Value *expCpu(IRBuilderBase &b, Value *x) { return cg::emitExpF32(b, x); }
Value *expGpu(IRBuilderBase &b, Value *x) { return cg::emitExpF32(b, x, cg::MathTarget::Gpu); }
Value *logisticCpu(IRBuilderBase &b, Value *x) { return cg::emitLogisticF32(b, x); }
Value *logisticGpu(IRBuilderBase &b, Value *x) {
  return cg::emitLogisticF32(b, x, cg::MathTarget::Gpu);
}

float fromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// The distance in ulps between `got` and the exact value `want`, measured in the
/// ulp of float at `want` (subnormal spacing below 2^-126); 0 when both are the same
/// NaN/inf/zero, infinity when they differ in kind or the sign of a zero.
double ulpError(float got, long double want) {
  if (std::isnan(want) || std::isnan(got))
    return std::isnan(want) && std::isnan(got) ? 0 : INFINITY;
  float wr = float(want);
  if (std::isinf(wr) || std::isinf(got)) return got == wr ? 0 : INFINITY;
  if (wr == 0 && got == 0) return std::signbit(wr) == std::signbit(got) ? 0 : INFINITY;
  int e;
  std::frexp(double(std::fabs(want)), &e);
  long double ulp = std::ldexp(1.0L, std::max(e, -125) - 24);
  return double(std::fabs(got - want) / ulp);
}

/// Inputs: special values, random bit patterns (finite or not), and `dense` numbers
/// uniform in [lo, hi].
std::vector<float> inputs(float lo, float hi, uint32_t seed, size_t dense = 60000,
                          size_t bits = 40000) {
  const float inf = std::numeric_limits<float>::infinity(),
              nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> v = {
      0.0f,          -0.0f,          inf,     -inf,       nan,        1.0f,    -1.0f,
      0.5f,          2.0f,           1e-45f,  -1e-45f,    1e-40f,     -1e-40f, 1.17549435e-38f,
      3.4028235e38f, -3.4028235e38f, 1e-10f,  -1e-10f,    3e-4f,      88.72f,  88.73f,
      -87.3f,        -103.9f,        -104.5f, 1.5707964f, 3.1415927f, 1e5f,    -1e5f,
      117435.0f};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  for (size_t k = 0; k < dense; ++k) v.push_back(u(rng));
  for (size_t k = 0; k < bits; ++k) v.push_back(fromBits(uint32_t(rng())));
  return v;
}

struct Stats {
  double maxUlp = 0;
  float worst = 0;
};

/// Runs unary `emit` on xs and compares with `ref` where minArg <= x and |x| <= maxArg.
Stats measure(const Emit &emit, long double (*ref)(long double), const std::vector<float> &xs,
              float maxArg = INFINITY, float minArg = -INFINITY) {
  Compiled k = compileLoop(emit);
  std::vector<float> out(xs.size());
  k.fn(xs.data(), xs.data(), out.data(), int64_t(xs.size()));
  Stats s;
  for (size_t i = 0; i < xs.size(); ++i) {
    if (std::fabs(xs[i]) > maxArg || xs[i] < minArg) continue;
    double e = ulpError(out[i], ref(xs[i]));
    if (e > s.maxUlp) s = {e, xs[i]};
  }
  return s;
}

long double expRef(long double x) { return std::exp(x); }
/// XLA's CPU code flushes denormal inputs to zero, and our log and log1p do as it does
/// (they are bit for bit XLA's, docs/prng.md): the references see what they see.
long double flushed(long double x) { return std::fabs(x) < 0x1p-126L ? std::copysign(0.0L, x) : x; }
long double logRef(long double x) { return std::log(flushed(x)); }
long double log1pRef(long double x) { return std::log1p(flushed(x)); }
long double tanhRef(long double x) { return std::tanh(x); }
long double logisticRef(long double x) { return 1.0L / (1.0L + std::exp(-x)); }
long double sinRef(long double x) { return std::sin(x); }
long double cosRef(long double x) { return std::cos(x); }
long double tanRef(long double x) { return std::tan(x); }

/// Whether optimised IR calls a function other than an LLVM intrinsic or VecMath's
/// own helpers (sin, cos, tan's large-argument path).
bool callsLibm(const std::string &ir) {
  for (size_t at = ir.find("call "); at != std::string::npos; at = ir.find("call ", at + 1)) {
    size_t callee = ir.find('@', at);
    if (callee != std::string::npos && ir.compare(callee, 6, "@llvm.") != 0 &&
        ir.compare(callee, 14, "@spmd.vecmath.") != 0)
      return true;
  }
  return false;
}

#define REPORT(name, s) INFO(name << ": max " << (s).maxUlp << " ulp at x = " << (s).worst)

}  // namespace

TEST_CASE("f32 exp, log, log1p, logistic are within 2 ulp", "[codegen][vecmath]") {
  auto xs = inputs(-110.0f, 90.0f, 1);
  Stats e = measure(unary(expGpu), expRef, xs);
  REPORT("exp (GPU)", e);
  CHECK(e.maxUlp <= 1.5);
  // XLA:CPU's (Note [XLA exp]): 0 where the result would be subnormal (JAX flushes
  // those), and up to 5 ulp off above 88.37, where n is clamped to 127.
  Stats ec = measure(unary(expCpu), expRef, xs, 88.37f, -87.3f);
  REPORT("exp (CPU)", ec);
  CHECK(ec.maxUlp <= 1.5);
  Stats eo = measure(unary(expCpu), expRef, xs, INFINITY, -87.3f);
  REPORT("exp (CPU, to overflow)", eo);
  CHECK(eo.maxUlp <= 5.5);
  Stats l = measure(unary(cg::emitLogF32), logRef, inputs(0.0f, 10.0f, 2));
  REPORT("log", l);
  CHECK(l.maxUlp <= 1.5);
  Stats l1 = measure(unary(cg::emitLog1pF32), log1pRef, inputs(-1.0f, 1.0f, 3));
  REPORT("log1p", l1);
  CHECK(l1.maxUlp <= 2.5);
  // Below -87.3 the result is subnormal and, as in XLA (1 / (1 + exp(-x))), 0 once
  // exp(-x) overflows; JAX flushes those results to 0 anyway.
  for (auto f : {logisticCpu, logisticGpu}) {
    Stats g = measure(unary(f), logisticRef, inputs(-87.3f, 30.0f, 4), INFINITY, -87.3f);
    REPORT("logistic", g);
    CHECK(g.maxUlp <= 2.5);
  }
}

TEST_CASE("f32 tanh is XLA's approximation", "[codegen][vecmath]") {
  Stats t = measure(unary(cg::emitTanhF32), tanhRef, inputs(-10.0f, 10.0f, 5));
  REPORT("tanh", t);
  CHECK(t.maxUlp <= 4.5);  // XLA's rational form; worst near |x| = 7.8, where it nears 1
}

TEST_CASE("f32 sin, cos, tan are within 2 ulp over the whole float range", "[codegen][vecmath]") {
  auto xs = inputs(-10.0f, 10.0f, 6);
  auto wide = inputs(-cg::kTrigMaxArg, cg::kTrigMaxArg, 7);
  xs.insert(xs.end(), wide.begin(), wide.end());
  // Past kTrigMaxArg (the Payne-Hanek reduction): every exponent, and the floats
  // nearest to multiples of pi/2 with their neighbours (the hardest to reduce), among
  // them 16367173 * 2^72, the float closest to one (Muller, Elementary Functions).
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> e(17.0, 128.0);
  for (int i = 0; i < 40000; ++i) xs.push_back(float((rng() % 2 ? -1 : 1) * std::exp2(e(rng))));
  for (int i = 0; i < 20000; ++i) {
    long double k = std::ldexp((long double)(rng() % (1u << 24)), int(rng() % 104));
    float x = float(k * 1.57079632679489661923132169163975144L);
    float lo = std::nextafter(x, 0.0f), hi = std::nextafter(x, INFINITY);
    if (std::isfinite(hi))
      for (float v : {std::nextafter(lo, 0.0f), lo, x, hi, std::nextafter(hi, INFINITY)})
        xs.push_back(v);
  }
  xs.push_back(16367173.0f * 0x1p72f);
  xs.push_back(1.4037388e23f);  // sin is 0.9129683 (JAX), and was 1 before the reduction
  struct Case {
    const char *name;
    Value *(*emit)(IRBuilderBase &, Value *);
    long double (*ref)(long double);
    double bound;
  };
  for (const Case &c : {Case{"sin", sinCpu, sinRef, 2.0}, Case{"cos", cosCpu, cosRef, 2.0},
                        Case{"tan", tanCpu, tanRef, 2.0}}) {
    Stats s = measure(unary(c.emit), c.ref, xs);
    REPORT(c.name, s);
    CHECK(s.maxUlp <= c.bound);
  }
}

TEST_CASE("f32 sin, cos, tan of one value take the large-argument path too", "[codegen][vecmath]") {
  // A vector operand calls the variant of its width directly; a scalar one (no loop to
  // vectorise: one element) calls the scalar helper.
  for (int width : {1, 8}) {
    auto ctx = std::make_unique<LLVMContext>();
    Module mod("one", *ctx);
    Type *f32 = Type::getFloatTy(*ctx), *ty = width == 1 ? f32 : FixedVectorType::get(f32, width);
    auto *fn =
        Function::Create(FunctionType::get(ty, {ty}, false), Function::ExternalLinkage, "f", mod);
    IRBuilder<> b(BasicBlock::Create(*ctx, "entry", fn));
    b.CreateRet(cg::emitSinF32(b, fn->getArg(0)));
    std::string err;
    raw_string_ostream os(err);
    INFO(err);
    CHECK_FALSE(verifyModule(mod, &os));
    // Note [Variants defined late]: the vector variant is a declaration until the
    // vectorisers are done; the pipeline defines it (it is called) and inlines it.
    if (width == 8) CHECK(mod.getFunction("spmd.vecmath.sin.v8")->isDeclaration());
    optimizeForHost(mod);
    CHECK_FALSE(verifyModule(mod, &os));
    CHECK(mod.getFunction(width == 1 ? "spmd.vecmath.sin.slow" : "spmd.vecmath.sin.v8.slow"));
    for (Function &f : mod)
      if (f.getName().starts_with("spmd.vecmath.")) CHECK_FALSE(f.isDeclaration());
  }
}

// Notes [glibc sinf and cosf], [glibc tanf]: JAX on the CPU calls the C library's sinf,
// cosf and tanf; the emitters are glibc's algorithms (sinf and cosf as its FMA variants
// compute them), so on a glibc x86-64 machine with FMA and AVX2 (which picks those
// variants) they agree bit for bit.
TEST_CASE("f32 sin, cos and tan are the C library's sinf, cosf and tanf", "[codegen][vecmath]") {
#if defined(__x86_64__) && defined(__GLIBC__)
  if (!__builtin_cpu_supports("fma") || !__builtin_cpu_supports("avx2")) {
    WARN("no FMA/AVX2: glibc's sinf and cosf are its SSE2 variants here; not compared");
    return;
  }
  std::vector<float> xs = inputs(-10.0f, 10.0f, 11);
  std::mt19937 rng(12);
  for (int i = 0; i < 200000; ++i) xs.push_back(fromBits(uint32_t(rng())));  // every exponent
  for (float v : {0.0f, -0.0f, 0x1p-12f, -0x1p-12f, 0x1.fffffep-13f, 0.75f, 0x1.921fb6p-1f,
                  119.99999f, 120.0f, -120.0f, 1e-45f, 3.4028235e38f, INFINITY, -INFINITY, NAN})
    xs.push_back(v);
  // tanf's hard cases: near multiples of pi/2 (its reflection at |r| >= 0.6744 and its
  // odd-quadrant -1/w), both sides of pi/4 and of 120.
  for (int i = 1; i < 20000; ++i) {
    float x = float(i * 1.5707963267948966 / 64);
    for (float v : {x, std::nextafter(x, 0.0f), std::nextafter(x, INFINITY), -x}) xs.push_back(v);
  }
  for (float v : {0x1.921fb4p-1f, 0x1.921fb6p-1f, 0x1.594282p-1f, 0x1p-13f, 0x1.fffffep-14f,
                  1.5707964f, -1.5707964f, 16367173.0f * 0x1p72f})
    xs.push_back(v);
  const char *names[] = {"sin", "cos", "tan"};
  for (int f = 0; f < 3; ++f) {
    Compiled k = compileLoop(unary(f == 0 ? sinCpu : f == 1 ? cosCpu : tanCpu));
    std::vector<float> out(xs.size());
    k.fn(xs.data(), xs.data(), out.data(), int64_t(xs.size()));
    size_t bad = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      float want = f == 0 ? ::sinf(xs[i]) : f == 1 ? ::cosf(xs[i]) : ::tanf(xs[i]);
      bool same = std::isnan(want) ? std::isnan(out[i]) : std::memcmp(&want, &out[i], 4) == 0;
      if (!same && bad++ < 5)
        UNSCOPED_INFO(names[f] << "(" << xs[i] << ") = " << out[i] << ", libm " << want);
    }
    CHECK(bad == 0);
  }
#else
  WARN("not glibc on x86-64: not compared");
#endif
}

TEST_CASE("f32 pow is within 1 ulp with C99's special cases", "[codegen][vecmath]") {
  Compiled k =
      compileLoop([](IRBuilderBase &b, Value *x, Value *y) { return cg::emitPowF32(b, x, y); });
  const float inf = INFINITY, nan = NAN;
  std::vector<float> xs, ys;
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> ux(0.0f, 20.0f), uy(-40.0f, 40.0f);
  for (int i = 0; i < 100000; ++i) {
    float x = ux(rng), y = uy(rng);
    if (i % 4 == 1) x = -x, y = std::round(y);                 // negative base, integer exponent
    if (i % 4 == 2) x = fromBits(rng()), y = fromBits(rng());  // anything
    xs.push_back(x), ys.push_back(y);
  }
  // Special cases: (x, y) with the result C99 (and JAX) give.
  const std::vector<std::array<float, 3>> special = {
      {1, nan, 1},       {-1, inf, 1},    {-1, -inf, 1},     {nan, 0, 1},      {-0.0f, -1, -inf},
      {-0.0f, -2, inf},  {-inf, 3, -inf}, {-inf, -3, -0.0f}, {-2, 3, -8},      {-8, 1.0f / 3, nan},
      {0, -0.5f, inf},   {0, 0, 1},       {inf, -1, 0},      {inf, 0.5f, inf}, {-inf, 0.5f, inf},
      {2, nan, nan},     {-1, 2.5f, nan}, {1, inf, 1},       {0.5f, inf, 0},   {2, -inf, 0},
      {-0.0f, 3, -0.0f}, {2, 128, inf},   {2, -149, 1e-45f}, {2, -151, 0}};
  for (auto &s : special) xs.push_back(s[0]), ys.push_back(s[1]);
  std::vector<float> out(xs.size());
  k.fn(xs.data(), ys.data(), out.data(), int64_t(xs.size()));
  Stats st;
  for (size_t i = 0; i < xs.size() - special.size(); ++i) {
    double e = ulpError(out[i], std::pow((long double)xs[i], (long double)ys[i]));
    if (e > st.maxUlp) st = {e, xs[i]};
  }
  REPORT("pow", st);
  CHECK(st.maxUlp <= 1.0);
  for (size_t j = 0; j < special.size(); ++j) {
    size_t i = xs.size() - special.size() + j;
    INFO("pow(" << xs[i] << ", " << ys[i] << ") = " << out[i]);
    CHECK(ulpError(out[i], special[j][2]) == 0);
  }
}

// Note [glibc powf]: JAX on the CPU calls the C library's powf; the emitter is glibc's
// algorithm as its FMA variant computes it (not correctly rounded: a correctly
// rounded pow differs from it in about 1 of 1,500 results).
TEST_CASE("f32 pow is the C library's powf", "[codegen][vecmath]") {
#if defined(__x86_64__) && defined(__GLIBC__)
  if (!__builtin_cpu_supports("fma") || !__builtin_cpu_supports("avx2")) {
    WARN("no FMA/AVX2: glibc's powf is its SSE2 variant here; not compared");
    return;
  }
  std::vector<float> xs, ys;
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> ux(0.0f, 10.0f), uy(-5.0f, 5.0f), big(-200.0f, 200.0f);
  for (int i = 0; i < 400000; ++i) {
    float x = ux(rng), y = uy(rng);
    switch (i % 5) {
    case 1: x = -x, y = std::round(y * 8); break;  // negative base, integer exponent
    case 2: x = fromBits(rng()), y = big(rng); break;  // every exponent of x
    case 3: x = fromBits(rng()), y = fromBits(rng()); break;  // anything
    case 4: x = 1.0f + (ux(rng) - 5.0f) * 1e-3f, y = big(rng) * 100.0f; break;  // near 0 and inf
    }
    xs.push_back(x), ys.push_back(y);
  }
  const float inf = INFINITY, nan = NAN;
  for (float x : {0.0f, -0.0f, 1.0f, -1.0f, 2.0f, -2.0f, 0.5f, inf, -inf, nan, 1e-45f, -1e-45f})
    for (float y : {0.0f, -0.0f, 1.0f, -1.0f, 3.0f, -3.0f, 0.5f, 2.5f, inf, -inf, nan, 0x1p24f,
                    -149.0f, -150.0f, 128.0f, 127.99999f})
      xs.push_back(x), ys.push_back(y);
  Compiled k =
      compileLoop([](IRBuilderBase &b, Value *x, Value *y) { return cg::emitPowF32(b, x, y); });
  std::vector<float> out(xs.size());
  k.fn(xs.data(), ys.data(), out.data(), int64_t(xs.size()));
  size_t bad = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    float want = ::powf(xs[i], ys[i]);
    bool same = std::isnan(want) ? std::isnan(out[i]) : std::memcmp(&want, &out[i], 4) == 0;
    if (!same && bad++ < 5)
      UNSCOPED_INFO("pow(" << xs[i] << ", " << ys[i] << ") = " << out[i] << ", libm " << want);
  }
  CHECK(bad == 0);
#else
  WARN("not glibc on x86-64: not compared");
#endif
}

TEST_CASE("loops using the f32 emitters vectorise", "[codegen][vecmath]") {
  for (auto f : {expCpu, expGpu, sinCpu, cosCpu, tanCpu, cg::emitTanhF32, logisticCpu,
                 logisticGpu, cg::emitLogF32, cg::emitLog1pF32}) {
    Compiled k = compileLoop(unary(f));
    INFO(k.ir);
    CHECK(k.ir.find(" x float>") != std::string::npos);
    CHECK_FALSE(callsLibm(k.ir));
  }
  // sin, cos and tan's vector loops test their lanes for the large-argument path and
  // branch to it (the vector variant, inlined after the vectoriser): no call in the loop.
  for (auto f : {sinCpu, cosCpu, tanCpu}) {
    Compiled k = compileLoop(unary(f));
    std::string kernel = k.ir.substr(k.ir.find("define void @kernel"));
    kernel = kernel.substr(0, kernel.find("\n}\n"));
    INFO(kernel);
    CHECK(kernel.find(".slow(") != std::string::npos);  // the reduction, out of line
    CHECK_FALSE(
        std::regex_search(kernel, std::regex(R"(x float> @spmd\.vecmath\.\w+\.large\.v\d+\()")));
  }
  Compiled p =
      compileLoop([](IRBuilderBase &b, Value *x, Value *y) { return cg::emitPowF32(b, x, y); });
  INFO(p.ir);
  CHECK(p.ir.find(" x double>") != std::string::npos);
}
