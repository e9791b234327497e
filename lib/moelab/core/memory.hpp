// Memory sizes: what this process may use, and sizes as people write and read them. Used by the
// runner's cost refusal, by topics that refuse an oversized input before they allocate, and by the
// CLI's --max-memory.
#pragma once

#include <string>

namespace moelab {

/// Memory this process may use: the smallest of the physical memory, the cgroup limit, the kernel's
/// MemAvailable and what is left under the process's own address-space / data limits (bytes).
double machine_memory_bytes();
/// "3.5 GB", "812 MB", "4 kB" (decimal units, 2 significant digits past the point at most).
std::string format_bytes(double bytes);
/// Parses a memory size: "8G", "512M", "1.5e9", "64KiB", "2 GB" (k/M/G/T decimal, Ki/Mi/Gi/Ti binary,
/// optional trailing B); false when it is not one.
bool parse_memory_size(const std::string& text, double& bytes);

}  // namespace moelab
