#include "moelab/config.hpp"
#include "moelab/core/backend.hpp"
#include "moelab/core/backend_probe.hpp"

#include <cctype>

#if MOELAB_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace moelab {

const char* to_string(Backend b) { return b == Backend::cuda ? "cuda" : "cpu"; }

const char* to_string(BackendRequest r) {
  switch (r) {
    case BackendRequest::cpu: return "cpu";
    case BackendRequest::cuda: return "cuda";
    case BackendRequest::automatic: return "auto";
  }
  return "?";
}

std::optional<BackendRequest> parse_backend(const std::string& s) {
  if (s == "cpu") return BackendRequest::cpu;
  if (s == "cuda") return BackendRequest::cuda;
  if (s == "auto") return BackendRequest::automatic;
  return std::nullopt;
}

std::vector<CudaBuildArch> parse_cuda_architectures(const std::string& list) {
  std::vector<CudaBuildArch> out;
  std::string item;
  auto flush = [&] {
    if (item.empty()) return;
    CudaBuildArch a;
    std::size_t i = 0;
    while (i < item.size() && std::isdigit(static_cast<unsigned char>(item[i]))) a.arch = 10 * a.arch + (item[i++] - '0');
    while (i < item.size() && std::isalpha(static_cast<unsigned char>(item[i]))) ++i;  // "90a": arch-specific, same major/minor
    const std::string suffix = item.substr(i);
    if (a.arch == 0 || (!suffix.empty() && suffix != "-real" && suffix != "-virtual")) {
      out.push_back(CudaBuildArch{0, false, false});  // "native", "all", ...: unknown here
    } else {
      a.sass = suffix != "-virtual";
      a.ptx = suffix != "-real";
      out.push_back(a);
    }
    item.clear();
  };
  for (const char c : list) {
    if (c == ';' || c == ',' || c == ' ') flush();
    else item += c;
  }
  flush();
  return out;
}

namespace {
std::string version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }
}  // namespace

CudaUsability cuda_device_usability(const CudaDeviceFacts& f, const std::vector<CudaBuildArch>& built) {
  const std::string cc = std::to_string(f.cc_major) + "." + std::to_string(f.cc_minor);
  if (f.driver_version <= 0) return {false, "no CUDA driver (cudaDriverGetVersion reports none)"};
  if (f.driver_version / 1000 < f.runtime_version / 1000)
    return {false, "the driver supports CUDA " + version_text(f.driver_version) + " but moelab's runtime is CUDA " +
                       version_text(f.runtime_version) + " (a newer major version: update the driver)"};
  const bool jit_ok = f.driver_version >= f.runtime_version;
  const int device = 10 * f.cc_major + f.cc_minor;
  bool unknown = false;
  for (const CudaBuildArch& a : built) {
    if (a.arch == 0) {
      unknown = true;
      continue;
    }
    if (a.sass && a.arch / 10 == f.cc_major && a.arch % 10 <= f.cc_minor)
      return {true, "compute capability " + cc + ": runs the sm_" + std::to_string(a.arch) + " machine code"};
  }
  for (const CudaBuildArch& a : built)
    if (a.arch != 0 && a.ptx && a.arch <= device) {
      if (jit_ok) return {true, "compute capability " + cc + ": JIT-compiles the compute_" + std::to_string(a.arch) + " PTX"};
      return {false, "compute capability " + cc + " needs the compute_" + std::to_string(a.arch) + " PTX JIT-compiled, but the driver (CUDA " +
                         version_text(f.driver_version) + ") is older than the runtime (CUDA " + version_text(f.runtime_version) +
                         ") that made it"};
    }
  if (unknown) return {true, "compute capability " + cc + ": the build's architecture list is not explicit; the kernel probe decides"};
  std::string list;
  for (const CudaBuildArch& a : built) list += (list.empty() ? "" : ",") + std::to_string(a.arch);
  return {false, "compute capability " + cc + " has no kernel image in this build (built for " + (list.empty() ? "nothing" : list) +
                     "; reconfigure with -DCMAKE_CUDA_ARCHITECTURES=" + std::to_string(device) + ")"};
}

std::vector<CudaBuildArch> cuda_built_architectures() {
#if MOELAB_HAVE_CUDA && defined(MOELAB_CUDA_ARCHITECTURES)
  return parse_cuda_architectures(MOELAB_CUDA_ARCHITECTURES);
#elif MOELAB_HAVE_CUDA
  return {CudaBuildArch{90, true, true}};  // kernels/CMakeLists.txt's default (cmake/MoelabCuda.cmake)
#else
  return {};
#endif
}

std::string cuda_backend_report(bool* usable) {
  bool any = false;
  std::string out;
#if MOELAB_HAVE_CUDA
  int runtime = 0, driver = 0, count = 0;
  (void)cudaRuntimeGetVersion(&runtime);
  (void)cudaDriverGetVersion(&driver);
  out = "CUDA runtime " + version_text(runtime) + ", driver supports " + (driver > 0 ? "CUDA " + version_text(driver) : std::string("none"));
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    out += std::string("; cudaGetDeviceCount: ") + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")";
    (void)cudaGetLastError();
  } else if (count == 0) {
    out += "; no CUDA device";
  }
  const auto built = cuda_built_architectures();
  for (int d = 0; status == cudaSuccess && d < count; ++d) {
    CudaDeviceFacts f;
    f.runtime_version = runtime;
    f.driver_version = driver;
    cudaDeviceProp prop{};
    const cudaError_t e = cudaGetDeviceProperties(&prop, d);
    if (e != cudaSuccess) {
      out += "; device " + std::to_string(d) + ": cudaGetDeviceProperties: " + cudaGetErrorString(e);
      (void)cudaGetLastError();
      continue;
    }
    f.cc_major = prop.major;
    f.cc_minor = prop.minor;
    const CudaUsability u = cuda_device_usability(f, built);
    // Only device 0 runs the kernels (the current device): it alone decides.
    if (d == 0) any = u.usable;
    out += "; device " + std::to_string(d) + " " + prop.name + ": " + (u.usable ? "usable, " : "NOT usable, ") + u.reason;
  }
#else
  out = "moelab was built without CUDA";
#endif
  if (usable) *usable = any;
  return out;
}

bool cuda_backend_available() {
#if MOELAB_HAVE_CUDA
  static const bool usable = [] {
    bool u = false;
    (void)cuda_backend_report(&u);
    return u;
  }();
  return usable;
#else
  return false;
#endif
}

const char* to_string(CudaPath p) {
  switch (p) {
    case CudaPath::none: return "none";
    case CudaPath::experimental: return "experimental";
    case CudaPath::validated: return "validated";
  }
  return "?";
}

std::optional<Backend> resolve_backend(BackendRequest r, CudaPath path, std::string* why) {
  if (r == BackendRequest::cpu) return Backend::cpu;
  const bool built =
#if MOELAB_HAVE_CUDA
      true;
#else
      false;
#endif
  const bool device = built && cuda_backend_available();
  if (r == BackendRequest::automatic) return device && path == CudaPath::validated ? Backend::cuda : Backend::cpu;
  if (device && path != CudaPath::none) return Backend::cuda;
  if (why) {
    *why = !built     ? "this moelab was built without CUDA (configure with -DMOELAB_CUDA=ON where nvcc exists)"
           : !device  ? "no usable CUDA device: " + cuda_backend_report()
                      : "this work has no CUDA path yet; use backend = \"cpu\" or \"auto\"";
  }
  return std::nullopt;
}

}  // namespace moelab
