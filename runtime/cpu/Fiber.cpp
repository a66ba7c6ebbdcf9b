// ===- Fiber.cpp - user-level contexts for CPU devices -------------------------===//
#include "cpu/Fiber.h"

#include <algorithm>
#include <chrono>
#include <pthread.h>
#include <cstdlib>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SPMD_FIBER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SPMD_FIBER_ASAN 1
#endif
#if defined(SPMD_FIBER_ASAN)
#include <sanitizer/common_interface_defs.h>
#endif

#if defined(__x86_64__) && defined(__ELF__) && !defined(SPMD_FIBER_UCONTEXT)
#define SPMD_FIBER_ASM 1
#endif

namespace spmd::rt {

// Note [Fiber switch]
// ~~~~~~~~~~~~~~~~~~~
// glibc's swapcontext saves and restores the signal mask with a rt_sigprocmask system
// call on every switch (and the whole register file besides): fiberSwitchNanos against
// ucontextSwitchNanos measures the difference (bench/notes.md, 2026-11-24: fibers). On
// x86-64 a switch is a call to spmd_fiber_switch(save, load) below: it pushes the
// registers the SysV ABI says a callee must preserve (rbx, rbp, r12 to r15), stores
// MXCSR and the x87 control word (the floating-point modes, Note [Denormals]: a fiber
// keeps the mode it was started with), saves the stack pointer in *save, loads `load`,
// and pops the same set from there. Everything else is caller-saved, so the compiler has
// already spilled what it needs around the call. A fresh fiber's stack is laid out as if
// it had called spmd_fiber_switch itself, with spmd_fiber_trampoline as the return
// address, the entry in r13 and its argument in r12; rbp is 0 there, so frame-pointer
// unwinders (perf) stop at the fiber's base. Other targets use ucontext (also x86-64
// when compiled with -DSPMD_FIBER_UCONTEXT, to test that path).

#if defined(SPMD_FIBER_ASM)
extern "C" void spmd_fiber_switch(void **save, void *load);
extern "C" void spmd_fiber_trampoline();
asm(R"(
  .text
  .globl spmd_fiber_switch
  .hidden spmd_fiber_switch
  .type spmd_fiber_switch,@function
  .p2align 4
spmd_fiber_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size spmd_fiber_switch,.-spmd_fiber_switch

  .globl spmd_fiber_trampoline
  .hidden spmd_fiber_trampoline
  .type spmd_fiber_trampoline,@function
  .p2align 4
spmd_fiber_trampoline:
  movq %r12, %rdi
  callq *%r13
  ud2
  .size spmd_fiber_trampoline,.-spmd_fiber_trampoline
)");
#endif

namespace {

[[maybe_unused]] ucontext_t *uc(FiberContext &c) {
  if (!c.impl) c.impl = new ucontext_t{};
  return static_cast<ucontext_t *>(c.impl);
}

void rawSwitch(FiberContext &save, FiberContext &load) {
#if defined(SPMD_FIBER_ASM)
  spmd_fiber_switch(&save.sp, load.sp);
#else
  swapcontext(uc(save), uc(load));
#endif
}

#if !defined(SPMD_FIBER_ASM)
/// makecontext passes ints: the entry and its argument in halves.
void ucontextEntry(unsigned e0, unsigned e1, unsigned a0, unsigned a1) {
  auto entry = reinterpret_cast<void (*)(void *)>(uintptr_t(e1) << 32 | e0);
  entry(reinterpret_cast<void *>(uintptr_t(a1) << 32 | a0));
  std::abort();  // entries never return
}
#endif

}  // namespace

Fiber::~Fiber() {
  if (stack_) munmap(stack_, mapped_);
}

// Note [Fiber stacks]
// ~~~~~~~~~~~~~~~~~~~
// What a device's work needs on its stack: the kernel's own frames, whose buffers of at
// most 16 KiB each are entry-block allocas (LlvmEmitter::allocBytes; larger ones and
// device programs' come from the arena), as many as the kernel has such values; the
// runtime entry points it calls (an allreduce keeps a 16 KiB chunk on the stack); and
// BLIS's frames for a product. Nothing bounds the number of small buffers in a kernel
// but the stack it runs on, and before fibers that was a std::thread's (glibc sizes it by
// RLIMIT_STACK: 8 MiB here, 64 MiB under `./x sanitize`, whose larger frames need it) or
// the host's main thread (the same limit). So a fiber's stack is what glibc would give a
// new thread (pthread_getattr_default_np), at least 8 MiB: every kernel that ran before
// still runs. The mapping is MAP_NORESERVE and reused across launches: only the pages a
// kernel touched are memory (8 devices reserve 64 MiB of address space, not of memory).
// Below it is a PROT_NONE guard page, so an overflow faults as a thread's would instead
// of writing over another mapping. tests/unit/runtime/test_fibers.cpp runs a kernel with
// a 6 MiB alloca on fibers.

size_t Fiber::stackBytes() {
  static const size_t bytes = [] {
    size_t size = 0;
    pthread_attr_t attr;
    if (pthread_getattr_default_np(&attr) == 0) {
      pthread_attr_getstacksize(&attr, &size);
      pthread_attr_destroy(&attr);
    }
    size_t page = size_t(sysconf(_SC_PAGESIZE));
    return (std::max(size, kMinStackBytes) + page - 1) / page * page;
  }();
  return bytes;
}

bool Fiber::reset(void (*entry)(void *), void *arg) {
  static const size_t page = size_t(sysconf(_SC_PAGESIZE));
  size_t kStackBytes = stackBytes();
  if (!stack_) {
    size_t bytes = kStackBytes + page;
    void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (p == MAP_FAILED) return false;
    if (mprotect(p, page, PROT_NONE) != 0) {
      munmap(p, bytes);
      return false;
    }
    stack_ = p;
    mapped_ = bytes;
  }
  char *bottom = static_cast<char *>(stack_) + page;
  char *top = bottom + kStackBytes;
  self_.stackBottom = bottom;
  self_.stackSize = kStackBytes;
  self_.fakeStack = nullptr;
#if defined(SPMD_FIBER_ASM)
  // The frame spmd_fiber_switch pops (Note [Fiber switch]); after its `ret` the stack
  // pointer is 16-byte aligned, as the trampoline's call needs.
  auto *slot = reinterpret_cast<uint64_t *>(top - 16 - 8 * 8);
  uint32_t mxcsr;
  uint16_t fpucw;
  asm volatile("stmxcsr %0" : "=m"(mxcsr));
  asm volatile("fnstcw %0" : "=m"(fpucw));
  slot[0] = uint64_t(mxcsr) | uint64_t(fpucw) << 32;
  slot[1] = 0;                                   // r15
  slot[2] = 0;                                   // r14
  slot[3] = reinterpret_cast<uint64_t>(entry);   // r13
  slot[4] = reinterpret_cast<uint64_t>(arg);     // r12
  slot[5] = 0;                                   // rbx
  slot[6] = 0;                                   // rbp
  slot[7] = reinterpret_cast<uint64_t>(&spmd_fiber_trampoline);
  self_.sp = slot;
#else
  ucontext_t *u = uc(self_);
  if (getcontext(u) != 0) return false;
  u->uc_stack.ss_sp = bottom;
  u->uc_stack.ss_size = kStackBytes;
  u->uc_link = nullptr;
  auto e = reinterpret_cast<uintptr_t>(entry), a = reinterpret_cast<uintptr_t>(arg);
  makecontext(u, reinterpret_cast<void (*)()>(&ucontextEntry), 4, unsigned(e), unsigned(e >> 32),
              unsigned(a), unsigned(a >> 32));
#endif
  return true;
}

void Fiber::switchIn(FiberContext &from) {
  resumer_ = &from;
#if defined(SPMD_FIBER_ASAN)
  __sanitizer_start_switch_fiber(&from.fakeStack, self_.stackBottom, self_.stackSize);
#endif
  rawSwitch(from, self_);
#if defined(SPMD_FIBER_ASAN)
  __sanitizer_finish_switch_fiber(from.fakeStack, nullptr, nullptr);
#endif
}

void Fiber::started() {
#if defined(SPMD_FIBER_ASAN)
  __sanitizer_finish_switch_fiber(nullptr, &resumer_->stackBottom, &resumer_->stackSize);
#endif
}

void Fiber::switchOut(bool finished) {
  FiberContext &to = *resumer_;
#if defined(SPMD_FIBER_ASAN)
  __sanitizer_start_switch_fiber(finished ? nullptr : &self_.fakeStack, to.stackBottom,
                                 to.stackSize);
#else
  (void)finished;
#endif
  rawSwitch(self_, to);
  // Resumed, possibly by another worker: resumer_ is the context that switched in now.
#if defined(SPMD_FIBER_ASAN)
  __sanitizer_finish_switch_fiber(self_.fakeStack, &resumer_->stackBottom,
                                  &resumer_->stackSize);
#endif
}

FiberContext::~FiberContext() { delete static_cast<ucontext_t *>(impl); }

// Switch timing (Note [Fiber switch]): a fiber that switches out `rounds` times.
namespace {
struct PingPong {
  Fiber fiber;
  int rounds = 0;
};
void pingPongEntry(void *arg) {
  auto *p = static_cast<PingPong *>(arg);
  p->fiber.started();
  for (;;) p->fiber.switchOut();
}

struct UcPingPong {
  ucontext_t main{}, fiber{};
  int rounds = 0;
};
UcPingPong *ucCurrent = nullptr;
void ucPingPongEntry() {
  for (;;) swapcontext(&ucCurrent->fiber, &ucCurrent->main);
}
}  // namespace

double fiberSwitchNanos(int rounds) {
  PingPong p;
  if (!p.fiber.reset(&pingPongEntry, &p)) return -1;
  FiberContext here;
  auto t0 = std::chrono::steady_clock::now();
  for (int k = 0; k < rounds; ++k) p.fiber.switchIn(here);
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / (2.0 * rounds);
}

double ucontextSwitchNanos(int rounds) {
#if defined(SPMD_FIBER_ASAN)
  // ASan warns once that it does not fully support swapcontext (a report `./x sanitize`
  // counts as a failure); the fibers themselves are annotated and do not use it on x86-64.
  (void)rounds;
  return -1;
#endif
  UcPingPong p;
  size_t bytes = size_t(256) << 10;
  void *stack = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (stack == MAP_FAILED) return -1;
  getcontext(&p.fiber);
  p.fiber.uc_stack.ss_sp = stack;
  p.fiber.uc_stack.ss_size = bytes;
  makecontext(&p.fiber, &ucPingPongEntry, 0);
  ucCurrent = &p;
  auto t0 = std::chrono::steady_clock::now();
  for (int k = 0; k < rounds; ++k) swapcontext(&p.main, &p.fiber);
  auto t1 = std::chrono::steady_clock::now();
  munmap(stack, bytes);
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / (2.0 * rounds);
}

}  // namespace spmd::rt
