// ===- test_threefry.cpp - the PRNG emitter against the C++ reference -------===//
//
// JIT-compiles (LLVM ORC LLJIT, after the O2 pipeline) small elementwise kernels built
// from compiler/codegen/ThreefryEmit.h, as scalars and as 8-wide vectors, and compares
// them with runtime/prng/Threefry2x32.h on many inputs: integer results exactly, floats bit for
// bit. The reference is itself checked against JAX (tests/unit/runtime/test_prng.cpp);
// the erf_inv kernel is also compared with JAX's golden erf_inv directly, and the
// normal kernel with JAX's normal() on every possible draw.
#include "../PrngGolden.h"
#include "Threefry2x32.h"
#include "codegen/ThreefryEmit.h"

#include <catch2/catch.hpp>

#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>

#include <cmath>
#include <functional>
#include <random>

using namespace llvm;
using namespace spmd;
namespace cg = spmd::codegen;

namespace {

/// Kernel body: the loaded inputs (scalars or vectors) and the i64 index of their
/// first lane (a vector of indices when vectorised) -> the outputs to store.
using Body = std::function<std::vector<Value *>(IRBuilderBase &, std::vector<Value *>, Value *)>;
using Kernel = void (*)(void **ins, void **outs, int64_t groups);

/// Builds `void k(void** ins, void** outs, i64 groups)`: for g < groups, loads
/// element(s) g*W .. g*W+W-1 of every input, runs `body`, stores every output.
/// `inTys`/`outTys` are element types; W = 1 emits scalars, W > 1 vectors.
Kernel jitKernel(const std::vector<Type *(*)(LLVMContext &)> &inTys,
                 const std::vector<Type *(*)(LLVMContext &)> &outTys, unsigned width, Body body) {
  static bool init = (InitializeNativeTarget(), InitializeNativeTargetAsmPrinter(), true);
  (void)init;
  auto ctx = std::make_unique<LLVMContext>();
  auto mod = std::make_unique<Module>("prng_test", *ctx);
  LLVMContext &c = *ctx;
  Type *ptr = PointerType::getUnqual(c), *i64 = Type::getInt64Ty(c);
  auto *fn = Function::Create(FunctionType::get(Type::getVoidTy(c), {ptr, ptr, i64}, false),
                              Function::ExternalLinkage, "kernel", *mod);
  auto *entry = BasicBlock::Create(c, "entry", fn), *loop = BasicBlock::Create(c, "loop", fn),
       *exit = BasicBlock::Create(c, "exit", fn);
  IRBuilder<> b(entry);
  auto vec = [&](Type *t) -> Type * { return width == 1 ? t : FixedVectorType::get(t, width); };
  auto arrayAt = [&](Value *arr, size_t k) {
    return b.CreateLoad(ptr, b.CreateConstGEP1_64(ptr, arr, k));
  };
  b.CreateCondBr(b.CreateICmpSGT(fn->getArg(2), b.getInt64(0)), loop, exit);
  b.SetInsertPoint(loop);
  PHINode *g = b.CreatePHI(i64, 2);
  g->addIncoming(b.getInt64(0), entry);
  Value *first = b.CreateMul(g, b.getInt64(width));
  std::vector<Value *> ins;
  for (size_t k = 0; k < inTys.size(); ++k) {
    Type *t = vec(inTys[k](c));
    ins.push_back(b.CreateAlignedLoad(t, b.CreateGEP(t, arrayAt(fn->getArg(0), k), g), Align(4)));
  }
  Value *index = first;
  if (width > 1) {
    std::vector<Constant *> lanes;
    for (unsigned l = 0; l < width; ++l) lanes.push_back(b.getInt64(l));
    index = b.CreateAdd(b.CreateVectorSplat(width, first), ConstantVector::get(lanes));
  }
  std::vector<Value *> outs = body(b, ins, index);
  REQUIRE(outs.size() == outTys.size());
  for (size_t k = 0; k < outs.size(); ++k) {
    Type *t = vec(outTys[k](c));
    b.CreateAlignedStore(outs[k], b.CreateGEP(t, arrayAt(fn->getArg(1), k), g), Align(4));
  }
  Value *next = b.CreateAdd(g, b.getInt64(1));
  g->addIncoming(next, b.GetInsertBlock());
  b.CreateCondBr(b.CreateICmpSLT(next, fn->getArg(2)), loop, exit);
  b.SetInsertPoint(exit);
  b.CreateRetVoid();
  REQUIRE_FALSE(verifyModule(*mod, &errs()));

  // The optimiser must not change any bit (nothing carries fast-math flags).
  LoopAnalysisManager lam;
  FunctionAnalysisManager fam;
  CGSCCAnalysisManager cgam;
  ModuleAnalysisManager mam;
  PassBuilder pb;
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.buildPerModuleDefaultPipeline(OptimizationLevel::O2).run(*mod, mam);

  static std::vector<std::unique_ptr<orc::LLJIT>> jits;  // kept alive for the test run
  auto jit = cantFail(orc::LLJITBuilder().create());
  cantFail(jit->addIRModule(orc::ThreadSafeModule(std::move(mod), std::move(ctx))));
  auto fnPtr = cantFail(jit->lookup("kernel")).toPtr<Kernel>();
  jits.push_back(std::move(jit));
  return fnPtr;
}

Type *i32Ty(LLVMContext &c) { return Type::getInt32Ty(c); }
Type *f32Ty(LLVMContext &c) { return Type::getFloatTy(c); }

constexpr size_t kN = 4096;  // elements per comparison (a multiple of every width)

std::vector<uint32_t> randomWords(uint32_t seed, size_t n = kN) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> v(n);
  for (auto &w : v) w = rng();
  return v;
}

float bitsToFloat(uint32_t u) { return prng::detail::asFloat(u); }

/// Runs `k` over kN elements of the given input arrays into the output arrays.
template <class... Outs>
void run(Kernel k, unsigned width, std::vector<void *> ins, Outs &...outs) {
  std::vector<void *> o = {outs.data()...};
  k(ins.data(), o.data(), int64_t(kN / width));
}

}  // namespace

TEST_CASE("emitted threefry2x32, split, fold_in and bits match the reference", "[codegen][prng]") {
  auto k0 = randomWords(1), k1 = randomWords(2), x0 = randomWords(3), x1 = randomWords(4);
  k0[0] = k1[0] = x0[0] = x1[0] = 0;  // Random123's known answer, among the rest
  for (unsigned width : {1u, 8u}) {
    INFO("width " << width);
    Kernel tf = jitKernel({i32Ty, i32Ty, i32Ty, i32Ty}, {i32Ty, i32Ty}, width,
                          [](IRBuilderBase &b, std::vector<Value *> in, Value *) {
                            auto [y0, y1] = cg::emitThreefry2x32(b, in[0], in[1], in[2], in[3]);
                            return std::vector<Value *>{y0, y1};
                          });
    std::vector<uint32_t> y0(kN), y1(kN);
    run(tf, width, {k0.data(), k1.data(), x0.data(), x1.data()}, y0, y1);
    CHECK(y0[0] == 0x6b200159u);
    int bad = 0;
    for (size_t i = 0; i < kN; ++i) {
      auto want = prng::threefry2x32({k0[i], k1[i]}, {x0[i], x1[i]});
      bad += y0[i] != want[0] || y1[i] != want[1];
    }
    CHECK(bad == 0);

    // split_at / random_bits_at on the element index, fold_in on data x0.
    Kernel prim = jitKernel(
        {i32Ty, i32Ty, i32Ty}, {i32Ty, i32Ty, i32Ty, i32Ty, i32Ty, i32Ty}, width,
        [](IRBuilderBase &b, std::vector<Value *> in, Value *index) {
          cg::WordPair key{in[0], in[1]};
          // Indices past 2^32 exercise the high counter word.
          Value *far = b.CreateAdd(index, ConstantInt::get(index->getType(), 0x300000000ull));
          auto s = cg::emitSplitAt(b, key, far);
          auto f = cg::emitFoldIn(b, key, in[2]);
          auto seed = cg::emitRandomSeed(b, in[2]);
          return std::vector<Value *>{
              s.first,    s.second, f.first, f.second, cg::emitRandomBitsAt(b, key, index),
              seed.second};
        });
    std::vector<uint32_t> s0(kN), s1(kN), f0(kN), f1(kN), bits(kN), seeded(kN);
    run(prim, width, {k0.data(), k1.data(), x0.data()}, s0, s1, f0, f1, bits, seeded);
    bad = 0;
    for (size_t i = 0; i < kN; ++i) {
      prng::Key key{k0[i], k1[i]};
      auto s = prng::split_at(key, i + 0x300000000ull);
      auto f = prng::fold_in(key, x0[i]);
      bad += s0[i] != s[0] || s1[i] != s[1] || f0[i] != f[0] || f1[i] != f[1];
      bad += bits[i] != prng::random_bits_at(key, i) || seeded[i] != prng::seed(int32_t(x0[i]))[1];
    }
    CHECK(bad == 0);
  }
}

TEST_CASE("emitted uniform, normal and randint match the reference bit for bit",
          "[codegen][prng]") {
  auto bits = randomWords(5), other = randomWords(6);
  // The extremes of the bit patterns, the ends of normal()'s range included.
  bits[0] = 0, bits[1] = 0xFFFFFFFFu, bits[2] = 0x80000000u, bits[3] = 0x7FFFFFFFu,
  bits[4] = 0x200u;
  std::vector<uint32_t> lows(kN), highs(kN);
  const int32_t ranges[][2] = {
      {0, 10}, {-5, 5}, {7, 3}, {0, 2147483647}, {-2147483647 - 1, 2147483647}, {100, 1000}};
  for (size_t i = 0; i < kN; ++i)
    lows[i] = uint32_t(ranges[i % 6][0]), highs[i] = uint32_t(ranges[i % 6][1]);
  for (unsigned width : {1u, 8u}) {
    INFO("width " << width);
    Kernel k = jitKernel(
        {i32Ty, i32Ty, i32Ty, i32Ty}, {f32Ty, f32Ty, f32Ty, i32Ty}, width,
        [](IRBuilderBase &b, std::vector<Value *> in, Value *) {
          Type *fty = in[0]->getType()->getWithNewType(b.getFloatTy());
          Value *u01 = cg::emitUniformFromBits(b, in[0], ConstantFP::get(fty, 0.0),
                                               ConstantFP::get(fty, 1.0));
          Value *uab = cg::emitUniformFromBits(b, in[0], ConstantFP::get(fty, 0.5f),
                                               ConstantFP::get(fty, 3.7f));
          return std::vector<Value *>{u01, uab, cg::emitNormalFromBits(b, in[0]),
                                      cg::emitRandintFromBits(b, in[0], in[1], in[2], in[3])};
        });
    std::vector<float> u01(kN), uab(kN), normal(kN);
    std::vector<int32_t> ri(kN);
    run(k, width, {bits.data(), other.data(), lows.data(), highs.data()}, u01, uab, normal, ri);
    int bad = 0;
    for (size_t i = 0; i < kN; ++i) {
      bad += prng::detail::asBits(u01[i]) !=
             prng::detail::asBits(prng::uniformFromBits(bits[i], 0.0f, 1.0f));
      bad += prng::detail::asBits(uab[i]) !=
             prng::detail::asBits(prng::uniformFromBits(bits[i], 0.5f, 3.7f));
      bad += prng::detail::asBits(normal[i]) != prng::detail::asBits(prng::normalFromBits(bits[i]));
      bad += ri[i] != prng::randintFromBits(bits[i], other[i], int32_t(lows[i]), int32_t(highs[i]));
    }
    CHECK(bad == 0);
  }
}

TEST_CASE("emitted erf_inv, log1p and log match the reference and JAX", "[codegen][prng]") {
  // Inputs: random floats in (-1, 1), random bit patterns (every sign and exponent),
  // and JAX's golden erf_inv inputs with their outputs.
  std::vector<float> xs(kN), want(kN, NAN);
  auto words = randomWords(7);
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (size_t i = 0; i < kN; ++i) xs[i] = i % 2 ? dist(rng) : bitsToFloat(words[i]);
  size_t g = 0;
  for (const auto &r : testing::readPrngGolden())
    for (size_t j = 0; r.kind == "erf_inv" && j + 1 < r.values.size() && g < kN; j += 2, g += 2)
      xs[g] = testing::goldenF32Hex(r.values[j]), want[g] = testing::goldenF32Hex(r.values[j + 1]);
  const float specials[] = {0.0f,
                            -0.0f,
                            1.0f,
                            -1.0f,
                            2.0f,
                            -2.0f,
                            INFINITY,
                            -INFINITY,
                            NAN,
                            1e-40f,
                            -0.5f,
                            0x1p-126f,
                            -0x1p-126f,
                            0x1.000002p-126f,
                            0x1.fffffcp-127f,
                            3.4028235e38f};
  for (size_t i = 0; i < std::size(specials); ++i) xs[2 * i + 1] = specials[i];

  for (unsigned width : {1u, 8u}) {
    INFO("width " << width);
    Kernel k = jitKernel({f32Ty}, {f32Ty, f32Ty, f32Ty}, width,
                         [](IRBuilderBase &b, std::vector<Value *> in, Value *) {
                           return std::vector<Value *>{cg::emitErfInvF32(b, in[0]),
                                                       cg::emitLog1pF32(b, in[0]),
                                                       cg::emitLogF32(b, in[0])};
                         });
    std::vector<float> ei(kN), l1p(kN), lg(kN);
    run(k, width, {xs.data()}, ei, l1p, lg);
    int bad = 0, vsJax = 0, far = 0;
    auto same = [](float a, float b) {
      return prng::detail::asBits(a) == prng::detail::asBits(b) || (a != a && b != b);
    };
    for (size_t i = 0; i < kN; ++i) {
      bool ok = same(ei[i], prng::erfInvF32(xs[i])) && same(l1p[i], prng::log1pF32(xs[i])) &&
                same(lg[i], prng::logF32(xs[i]));
      if (!ok)
        UNSCOPED_INFO("x = " << xs[i] << ": erf_inv " << ei[i] << " vs " << prng::erfInvF32(xs[i]));
      bad += !ok;
      if (!std::isnan(want[i])) {
        ++vsJax;
        far += !same(ei[i], want[i]);
      }
    }
    CHECK(bad == 0);
    CHECK(vsJax > 1000);
    CHECK(far == 0);
  }
}

TEST_CASE("emitted normal is JAX's for every possible uniform draw", "[codegen][prng]") {
  // normal() keeps the top 23 of its 32 random bits: all 2^23 values, as 8-wide
  // vectors, hashed as the golden record `normal_table` (JAX's values) is.
  constexpr size_t n = size_t(1) << 23;
  std::vector<uint32_t> bits(n), out(n);
  for (uint32_t m = 0; m < n; ++m) bits[m] = m << 9;
  Kernel k = jitKernel({i32Ty}, {f32Ty}, 8, [](IRBuilderBase &b, std::vector<Value *> in, Value *) {
    return std::vector<Value *>{cg::emitNormalFromBits(b, in[0])};
  });
  std::vector<void *> ins{bits.data()}, outs{out.data()};
  k(ins.data(), outs.data(), int64_t(n / 8));
  std::string want;
  for (const auto &r : testing::readPrngGolden())
    if (r.kind == "normal_table") want = r.values.at(0);
  char hex[17];
  snprintf(hex, sizeof hex, "%016llx", (unsigned long long)testing::fnv1a64Words(out.data(), n));
  CHECK(std::string(hex) == want);
}
