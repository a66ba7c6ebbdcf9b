// ===- Arena.cpp - per-device scratch memory -----------------------------------===//
#include "cpu/Arena.h"

#include <algorithm>

namespace spmd::rt {

Arena::~Arena() {
  for (Block &b : blocks_) freeBlock(b);
}

bool Arena::addBlock(int64_t size) {
  void *p = pool_.alloc(size);
  if (!p) return false;
  blocks_.push_back({static_cast<char *>(p), size, 0});
  return true;
}

void Arena::freeBlock(Block &b) {
  pool_.free(b.data);
  b.data = nullptr;
}

void *Arena::alloc(int64_t bytes) {
  if (bytes < 0) return nullptr;
  int64_t rounded = std::max<int64_t>(kAlign, (bytes + kAlign - 1) / kAlign * kAlign);
  if (blocks_.empty() || blocks_.back().size - blocks_.back().top < rounded) {
    // A fresh block; the last one's remainder is wasted until reset().
    if (!addBlock(std::max(rounded, kBlockBytes))) return nullptr;
  }
  Block &b = blocks_.back();
  char *p = b.data + b.top;
  b.top += rounded;
  used_ += rounded;
  return p;
}

void Arena::reset() {
  if (blocks_.size() > 1) {
    // The launch needed several blocks: keep one block big enough for all of it (up to
    // kKeepBytes), so that the next launch of the same kernel allocates nothing.
    int64_t total = 0;
    for (Block &b : blocks_) {
      total += b.size;
      freeBlock(b);
    }
    blocks_.clear();
    if (total <= kKeepBytes) addBlock(total);
  } else if (!blocks_.empty() && blocks_.back().size > kKeepBytes) {
    freeBlock(blocks_.back());
    blocks_.clear();
  }
  for (Block &b : blocks_) b.top = 0;
  used_ = 0;
}

}  // namespace spmd::rt
