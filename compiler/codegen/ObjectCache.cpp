// ===- ObjectCache.cpp - compiled programs kept on disk (Note [Object cache]) -===//
#include "codegen/ObjectCache.h"

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/SHA256.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <elf.h>
#include <filesystem>
#include <fstream>
#include <link.h>
#include <random>
#include <system_error>

namespace spmd::codegen {

namespace fs = std::filesystem;

namespace {
constexpr char kMagic[] = "spmdrun object cache 2\n";
constexpr size_t kMagicLen = sizeof kMagic - 1;

std::string hex(const std::array<uint8_t, 32> &d) {
  static const char *digits = "0123456789abcdef";
  std::string s;
  for (uint8_t b : d) {
    s += digits[b >> 4];
    s += digits[b & 15];
  }
  return s;
}

std::array<uint8_t, 32> sha256(std::string_view s) {
  llvm::SHA256 h;
  h.update(llvm::StringRef(s.data(), s.size()));
  return h.final();
}

void putU64(std::string &out, uint64_t v) {
  out.append(reinterpret_cast<const char *>(&v), sizeof v);
}
void putStr(std::string &out, const std::string &s) {
  putU64(out, s.size());
  out += s;
}

/// Reads what store() wrote, checking every length against what is left.
class Reader {
public:
  explicit Reader(std::string_view s) : s_(s) {}
  bool u64(uint64_t &v) {
    if (s_.size() - pos_ < sizeof v) return false;
    std::memcpy(&v, s_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return true;
  }
  bool str(std::string &out) {
    uint64_t n;
    if (!u64(n) || n > s_.size() - pos_) return false;
    out.assign(s_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  bool done() const { return pos_ == s_.size(); }

private:
  std::string_view s_;
  size_t pos_ = 0;
};

/// dl_iterate_phdr visits the executable first; its PT_NOTE segments hold the build ID.
int findBuildId(struct dl_phdr_info *info, size_t, void *data) {
  auto *out = static_cast<std::string *>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) &ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const char *p = reinterpret_cast<const char *>(info->dlpi_addr + ph.p_vaddr),
               *end = p + ph.p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      ElfW(Nhdr) n;
      std::memcpy(&n, p, sizeof n);
      const char *name = p + sizeof n, *desc = name + ((n.n_namesz + 3) & ~3u);
      const char *next = desc + ((n.n_descsz + 3) & ~3u);
      if (next > end) break;
      if (n.n_type == NT_GNU_BUILD_ID && n.n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
        static const char *digits = "0123456789abcdef";
        for (uint32_t k = 0; k < n.n_descsz; ++k) {
          *out += digits[uint8_t(desc[k]) >> 4];
          *out += digits[uint8_t(desc[k]) & 15];
        }
        return 1;
      }
      p = next;
    }
  }
  return 1;  // only the executable, the first object visited
}
}  // namespace

const std::string &ObjectCache::compilerIdentity() {
  static const std::string id = [] {
    std::string s;
    dl_iterate_phdr(findBuildId, &s);
    return s;
  }();
  return id;
}

std::string ObjectCache::defaultDir() {
  if (const char *d = std::getenv("SPMDRUN_CACHE_DIR"); d && *d) return d;
  if (const char *d = std::getenv("XDG_CACHE_HOME"); d && *d) return std::string(d) + "/spmdrun";
  if (const char *d = std::getenv("HOME"); d && *d) return std::string(d) + "/.cache/spmdrun";
  return "";
}

std::string ObjectCache::pathOf(const std::string &key) const {
  return dir_ + "/" + hex(sha256(key)) + ".obj";
}

std::optional<CompiledProgram> ObjectCache::load(const std::string &key) const {
  std::string path = pathOf(key);
  // Only a regular file can be an entry: a directory in its place made the read throw
  // through main (abort, exit 134), and a FIFO or a link to /dev/zero never ended.
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string data;
  try {  // libstdc++'s stream buffer throws on a failed read(2) (EIO)
    data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } catch (const std::exception &) {
    return std::nullopt;
  }
  if (in.bad() || data.size() < kMagicLen + 64 || data.compare(0, kMagicLen, kMagic) != 0)
    return std::nullopt;
  std::string_view body(data.data(), data.size() - 32);
  auto sum = sha256(body);
  if (std::memcmp(sum.data(), data.data() + body.size(), 32) != 0) return std::nullopt;
  auto digest = sha256(key);
  if (std::memcmp(digest.data(), data.data() + kMagicLen, 32) != 0) return std::nullopt;
  Reader r(body.substr(kMagicLen + 32));
  CompiledProgram p;
  uint64_t objects, names;
  if (!r.u64(objects) || objects == 0 || objects > 64) return std::nullopt;  // 64: sanity
  for (uint64_t k = 0; k < objects; ++k)
    if (!r.str(p.objects.emplace_back()) || p.objects.back().empty()) return std::nullopt;
  if (!r.str(p.ptx) || !r.u64(names)) return std::nullopt;
  for (uint64_t k = 0; k < names; ++k) {
    if (!r.str(p.kernelNames.emplace_back())) return std::nullopt;
  }
  if (!r.done()) return std::nullopt;
  fs::last_write_time(path, fs::file_time_type::clock::now(), ec);  // recently used
  return p;
}

bool ObjectCache::store(const std::string &key, const CompiledProgram &p) const {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return false;
  std::string data(kMagic);
  auto digest = sha256(key);
  data.append(reinterpret_cast<const char *>(digest.data()), digest.size());
  putU64(data, p.objects.size());
  for (auto &o : p.objects) putStr(data, o);
  putStr(data, p.ptx);
  putU64(data, p.kernelNames.size());
  for (auto &n : p.kernelNames) putStr(data, n);
  auto sum = sha256(data);
  data.append(reinterpret_cast<const char *>(sum.data()), sum.size());

  std::random_device rd;
  std::string tmp = dir_ + "/.tmp-" + std::to_string(rd()) + std::to_string(rd());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(data.data(), std::streamsize(data.size()));
    out.close();
    if (!out) {
      fs::remove(tmp, ec);
      return false;
    }
  }
  fs::rename(tmp, pathOf(key), ec);
  if (ec) {
    fs::remove(tmp, ec);
    return false;
  }
  trim();
  return true;
}

/// Removes the least recently used entries while the directory holds over kMaxBytes, and
/// temporary files over an hour old (left by a process that died while writing).
void ObjectCache::trim() const {
  struct Entry {
    fs::path path;
    uint64_t bytes;
    fs::file_time_type time;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::error_code ec;
  auto now = fs::file_time_type::clock::now();
  for (auto it = fs::directory_iterator(dir_, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    std::error_code e2;
    std::string name = it->path().filename().string();
    auto time = it->last_write_time(e2);
    if (e2) continue;
    if (name.rfind(".tmp-", 0) == 0) {
      if (now - time > std::chrono::hours(1)) fs::remove(it->path(), e2);
      continue;
    }
    if (name.size() != 68 || name.substr(64) != ".obj") continue;
    uint64_t bytes = it->file_size(e2);
    if (e2) continue;
    entries.push_back({it->path(), bytes, time});
    total += bytes;
  }
  if (total <= kMaxBytes) return;
  std::sort(entries.begin(), entries.end(),
            [](const Entry &a, const Entry &b) { return a.time < b.time; });
  for (auto &e : entries) {
    if (total <= kMaxBytes) break;
    if (fs::remove(e.path, ec)) total -= e.bytes;
  }
}

}  // namespace spmd::codegen
