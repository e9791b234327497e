#include "moelab/core/memory.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <string>
#include <utility>

#include <sys/resource.h>
#include <unistd.h>

#include <fmt/format.h>

namespace moelab {

double machine_memory_bytes() {
  double bytes = static_cast<double>(::sysconf(_SC_PHYS_PAGES)) * static_cast<double>(::sysconf(_SC_PAGESIZE));
  if (!(bytes > 0)) bytes = 1e18;
  // A container's limit (cgroup v2, then v1) is what the process can really get.
  for (const char* f : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream in(f);
    double limit = 0;
    if (in >> limit && limit > 0) bytes = std::min(bytes, limit);
  }
  // What the kernel can give without swapping or killing (MemAvailable): on a shared machine the
  // physical size admitted a 24 GB run with 15 GB free, which the OOM killer ended.
  std::ifstream meminfo("/proc/meminfo");
  for (std::string key; meminfo >> key;) {
    double kb = 0;
    if (key == "MemAvailable:" && meminfo >> kb && kb > 0) bytes = std::min(bytes, 1024.0 * kb);
    meminfo.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  // The process's own limits (ulimit -v / -d, a batch system's address-space limit): what is left
  // under them, beyond what the process already maps (RLIMIT_AS: its address space; RLIMIT_DATA: its
  // data segment and private mappings, counted as VmData).
  const auto status_kb = [](const char* key) {
    std::ifstream st("/proc/self/status");
    for (std::string k; st >> k;) {
      double kb = 0;
      if (k == key && st >> kb) return kb;
      st.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
    }
    return 0.0;
  };
  for (const auto& [resource, key] : {std::pair{RLIMIT_AS, "VmSize:"}, std::pair{RLIMIT_DATA, "VmData:"}}) {
    rlimit rl{};
    if (::getrlimit(resource, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
      bytes = std::min(bytes, std::max(0.0, static_cast<double>(rl.rlim_cur) - 1024.0 * status_kb(key)));
  }
  return bytes > 0 ? bytes : 1.0;
}

std::string format_bytes(double b) {
  if (!(b < 1e30)) return fmt::format("{:.3g} bytes", b);
  const char* units[] = {"bytes", "kB", "MB", "GB", "TB", "PB", "EB"};
  int u = 0;
  while (b >= 1000.0 && u < 6) b /= 1000.0, ++u;
  return u == 0 ? fmt::format("{:.0f} bytes", b) : fmt::format("{:.3g} {}", b, units[u]);
}

bool parse_memory_size(const std::string& text, double& bytes) {
  std::size_t end = 0;
  double x = 0;
  try {
    x = std::stod(text, &end);
  } catch (...) {
    return false;
  }
  std::string unit = text.substr(end);
  unit.erase(0, unit.find_first_not_of(' '));
  if (!unit.empty() && (unit.back() == 'B' || unit.back() == 'b') && unit != "b") unit.pop_back();
  double scale = 1;
  if (unit.empty()) scale = 1;
  else if (unit == "k" || unit == "K") scale = 1e3;
  else if (unit == "M") scale = 1e6;
  else if (unit == "G") scale = 1e9;
  else if (unit == "T") scale = 1e12;
  else if (unit == "Ki") scale = 1024.0;
  else if (unit == "Mi") scale = 1024.0 * 1024;
  else if (unit == "Gi") scale = 1024.0 * 1024 * 1024;
  else if (unit == "Ti") scale = 1024.0 * 1024 * 1024 * 1024;
  else return false;
  bytes = x * scale;
  return std::isfinite(bytes) && bytes > 0;
}

}  // namespace moelab
