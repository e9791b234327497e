// Which backend runs the Monte-Carlo loops: the CPU reference or CUDA (DESIGN.md, STYLE.md: same
// interfaces, CPU as reference). `auto` picks CUDA when moelab was built with it, a device is visible
// and the work has a *validated* CUDA path (its results checked against the CPU on a device);
// otherwise the CPU. An *experimental* path (compiled, its shared host/device code tested on the CPU,
// not yet run against the CPU on hardware) runs only when asked for by name. Asking for `cuda` where
// it cannot run is an error (never a silent fallback): the user asked for a device result.
#pragma once

#include <optional>
#include <string>

namespace moelab {

enum class Backend { cpu, cuda };
enum class BackendRequest { cpu, cuda, automatic };
/// The CUDA path a piece of work has (see the file comment).
enum class CudaPath { none, experimental, validated };

const char* to_string(Backend b);
const char* to_string(BackendRequest r);
/// "cpu", "cuda" or "auto"; nullopt otherwise.
std::optional<BackendRequest> parse_backend(const std::string& s);

/// True when moelab was built with CUDA and the runtime reports a *usable* device (never throws):
/// see cuda_device_usability (core/backend_probe.hpp). `auto` never picks CUDA otherwise.
bool cuda_backend_available();

/// The backend a request resolves to for work with the given CUDA path. Returns nullopt for `cuda`
/// when it cannot run; `why` then says why (not built with CUDA, no device, or no CUDA path).
std::optional<Backend> resolve_backend(BackendRequest r, CudaPath path, std::string* why = nullptr);
const char* to_string(CudaPath p);

}  // namespace moelab
