// ===- NcclApi.cpp - opening NCCL with dlopen; the cross-process path ---------===//
#include "nccl/NcclApi.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>

#include <dlfcn.h>

namespace spmd::rt::nccl {

// Note [Finding NCCL]
// ~~~~~~~~~~~~~~~~~~~
// As for cuBLAS (Note [Finding cuBLAS] in cuda/CudaApi.cpp), NCCL may be installed
// system-wide (the dynamic loader finds libnccl.so.2 through LD_LIBRARY_PATH or
// ld.so.cache) or only as a pip wheel (nvidia-nccl-cu13 puts it in
// site-packages/nvidia/nccl/lib, which the loader does not search). We try, in order:
//   1. the soname libnccl.so.2;
//   2. libnccl.so.2 in each directory of SPMD_NCCL_PATH (':'-separated);
//   3. nvidia/nccl/lib under the usual site-packages directories (/usr/local/lib and
//      ~/.local/lib python3.*, /usr/lib/python3/dist-packages, $VIRTUAL_ENV);
//   4. /usr/local/cuda/lib64 and /usr/local/cuda/lib.
// The first that opens and has every function of NcclApi wins. Python is never run.

namespace {

namespace fs = std::filesystem;

void addPythonDirs(std::vector<fs::path> &out, const fs::path &libDir, const char *leaf) {
  std::error_code ec;
  std::vector<fs::path> found;
  for (const fs::directory_entry &e : fs::directory_iterator(libDir, ec)) {
    std::string name = e.path().filename().string();
    if (name.rfind("python3", 0) == 0) found.push_back(e.path() / leaf);
  }
  std::sort(found.begin(), found.end());
  out.insert(out.end(), found.begin(), found.end());
}

template <typename F>
bool resolve(void *lib, F &slot, const char *name, std::string &missing) {
  slot = reinterpret_cast<F>(dlsym(lib, name));
  if (!slot && missing.empty()) missing = name;
  return slot != nullptr;
}

/// Opens `path` and resolves every function; null with the reason in `why`.
NcclApi *tryLoad(const std::string &path, std::string &why) {
  void *lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *err = dlerror();
    why = err ? err : path + ": cannot be opened";
    return nullptr;
  }
  auto api = std::make_unique<NcclApi>();
  std::string missing;
  bool ok = true;
#define SPMD_RESOLVE(f) ok = resolve(lib, api->f, #f, missing) && ok
  SPMD_RESOLVE(ncclGetVersion);
  SPMD_RESOLVE(ncclGetUniqueId);
  SPMD_RESOLVE(ncclCommInitRank);
  SPMD_RESOLVE(ncclCommSplit);
  SPMD_RESOLVE(ncclCommDestroy);
  SPMD_RESOLVE(ncclCommAbort);
  SPMD_RESOLVE(ncclCommGetAsyncError);
  SPMD_RESOLVE(ncclGetErrorString);
  SPMD_RESOLVE(ncclBroadcast);
  SPMD_RESOLVE(ncclSend);
  SPMD_RESOLVE(ncclRecv);
  SPMD_RESOLVE(ncclGroupStart);
  SPMD_RESOLVE(ncclGroupEnd);
#undef SPMD_RESOLVE
  if (!ok) {
    why = path + " lacks " + missing + " (NCCL older than 2.18?)";
    return nullptr;  // left open: harmless
  }
  if (api->ncclGetVersion(&api->version) != ncclSuccess) {
    why = path + ": ncclGetVersion failed";
    return nullptr;
  }
  api->path = path;
  // Kept for the process's lifetime, like the library (and reachable: no leak reported).
  static std::mutex mu;
  static std::vector<std::unique_ptr<NcclApi>> loaded;
  std::lock_guard<std::mutex> lock(mu);
  loaded.push_back(std::move(api));
  return loaded.back().get();
}

}  // namespace

std::vector<std::string> ncclCandidates() {
  std::vector<std::string> out{"libnccl.so.2"};
  std::vector<fs::path> dirs;
  if (const char *env = std::getenv("SPMD_NCCL_PATH")) {
    std::string s = env;
    for (size_t at = 0; at <= s.size();) {
      size_t colon = std::min(s.find(':', at), s.size());
      if (colon > at) dirs.emplace_back(s.substr(at, colon - at));
      at = colon + 1;
    }
  }
  std::vector<fs::path> sitePackages;
  addPythonDirs(sitePackages, "/usr/local/lib", "dist-packages");
  addPythonDirs(sitePackages, "/usr/local/lib", "site-packages");
  sitePackages.emplace_back("/usr/lib/python3/dist-packages");
  if (const char *home = std::getenv("HOME"))
    addPythonDirs(sitePackages, fs::path(home) / ".local/lib", "site-packages");
  if (const char *venv = std::getenv("VIRTUAL_ENV"))
    addPythonDirs(sitePackages, fs::path(venv) / "lib", "site-packages");
  for (const fs::path &sp : sitePackages) dirs.push_back(sp / "nvidia/nccl/lib");
  dirs.emplace_back("/usr/local/cuda/lib64");
  dirs.emplace_back("/usr/local/cuda/lib");
  for (const fs::path &d : dirs) out.push_back((d / "libnccl.so.2").string());
  return out;
}

const NcclApi *loadNcclFrom(const std::vector<std::string> &candidates, std::string &why) {
  std::string tried;
  for (const std::string &c : candidates) {
    if (c.find('/') != std::string::npos && !fs::exists(c)) continue;  // not worth a dlerror
    std::string reason;
    if (NcclApi *api = tryLoad(c, reason)) return api;
    tried += (tried.empty() ? "" : "; ") + reason;
  }
  why = "NCCL not found (libnccl.so.2: install the nvidia-nccl-cu13 wheel or set SPMD_NCCL_PATH)" +
        (tried.empty() ? std::string() : ": " + tried);
  return nullptr;
}

const NcclApi *ncclApi(std::string &why) {
  static std::once_flag once;
  static const NcclApi *api = nullptr;
  static std::string reason;
  std::call_once(once, [] { api = loadNcclFrom(ncclCandidates(), reason); });
  if (!api) why = reason;
  return api;
}

std::string versionText(int code) {
  // NCCL_VERSION(X,Y,Z): X*10000 + Y*100 + Z since 2.9; X*1000 + Y*100 + Z before.
  int major = code >= 10000 ? code / 10000 : code / 1000;
  int minor = code >= 10000 ? code / 100 % 100 : code / 100 % 10;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(code % 100);
}

std::string ncclErrorText(const NcclApi &api, ncclResult_t r, const std::string &what) {
  const char *text = api.ncclGetErrorString(r);
  return what + ": " + (text ? text : "unknown error") + " (NCCL error " + std::to_string(r) + ")";
}

PathChoice chooseCrossPath(const std::vector<std::string> &gpuOfRank,
                           const std::string &ncclMissing, bool forceHost) {
  PathChoice c;
  std::map<std::string, int> first;  // GPU -> the first rank on it
  for (int r = 0; r < int(gpuOfRank.size()); ++r) {
    auto [it, fresh] = first.emplace(gpuOfRank[r], r);
    if (!fresh && c.why.empty())
      c.why = "ranks " + std::to_string(it->second) + " and " + std::to_string(r) +
              " share GPU " + gpuOfRank[r] + ", which NCCL refuses";
  }
  if (!c.why.empty()) return c;
  if (forceHost) {
    c.why = "SPMD_NCCL=0";
    return c;
  }
  if (!ncclMissing.empty()) {
    c.why = ncclMissing;
    return c;
  }
  c.path = CrossPath::Nccl;
  c.why = "one GPU per rank";
  return c;
}

int gpuForLocalRank(int localRank, int gpus) {
  return gpus > 0 ? ((localRank % gpus) + gpus) % gpus : 0;
}

}  // namespace spmd::rt::nccl
