// ===- Arena.h - per-device scratch memory, released after each launch --------===//
//
// `spmd_dev_alloc` on a CPU device takes memory from its arena: bump allocation in
// 64-byte-aligned blocks, any size (a request larger than a block gets a block of its
// own, so gigabyte buffers work), everything released at once by reset() when the
// launch ends. Only the device's own thread touches its arena. Blocks come from the
// buffer pool (Note [Buffer pool] in BufferPool.h), so that a launch that needs more
// than the block the arena keeps gets the same memory back next time instead of fresh
// pages that fault on first touch.
#pragma once

#include "BufferPool.h"

#include <cstdint>
#include <vector>

namespace spmd::rt {

class Arena {
public:
  explicit Arena(BufferPool &pool = BufferPool::global()) : pool_(pool) {}
  Arena(const Arena &) = delete;
  Arena &operator=(const Arena &) = delete;
  ~Arena();

  /// `bytes` of 64-byte-aligned memory (a unique non-null pointer also for 0 bytes);
  /// null when the system is out of memory.
  void *alloc(int64_t bytes);
  /// Releases every allocation. Keeps one block (at most kKeepBytes) for the next launch.
  void reset();
  /// Bytes handed out since the last reset.
  int64_t used() const { return used_; }

  static constexpr int64_t kAlign = 64;
  static constexpr int64_t kBlockBytes = int64_t(1) << 20;
  static constexpr int64_t kKeepBytes = int64_t(64) << 20;

private:
  struct Block {
    char *data;
    int64_t size;
    int64_t top;
  };
  bool addBlock(int64_t size);
  void freeBlock(Block &b);
  BufferPool &pool_;
  std::vector<Block> blocks_;
  int64_t used_ = 0;
};

}  // namespace spmd::rt
