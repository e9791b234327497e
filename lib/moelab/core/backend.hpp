// Which backend runs the Monte-Carlo loops: the CPU reference or CUDA (DESIGN.md, STYLE.md: same
// interfaces, CPU as reference). `auto` picks CUDA when moelab was built with it, a device is visible
// and the study has a CUDA path; otherwise the CPU. Asking for `cuda` where it cannot run is an error
// (never a silent fallback): the user asked for a device result.
#pragma once

#include <optional>
#include <string>

namespace moelab {

enum class Backend { cpu, cuda };
enum class BackendRequest { cpu, cuda, automatic };

const char* to_string(Backend b);
const char* to_string(BackendRequest r);
/// "cpu", "cuda" or "auto"; nullopt otherwise.
std::optional<BackendRequest> parse_backend(const std::string& s);

/// True when moelab was built with CUDA and the runtime reports a device (never throws).
bool cuda_backend_available();

/// The backend a request resolves to for code that has (`has_cuda_path`) or lacks a CUDA path.
/// Returns nullopt for `cuda` when it cannot run; `why` then says why (not built with CUDA, no device,
/// or no CUDA path for this work).
std::optional<Backend> resolve_backend(BackendRequest r, bool has_cuda_path, std::string* why = nullptr);

}  // namespace moelab
