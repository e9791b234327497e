#include "moelab/core/version.hpp"

#include <fmt/format.h>

namespace moelab {

namespace {
const char* yes_no(bool b) { return b ? "yes" : "no"; }
}  // namespace

std::string tool_provenance() {
  return fmt::format("moelab {} (git {}; {}; {}; CUDA {}; MPI {}; BLAS {})", kVersion, git_revision(), kBuildType,
                     kCompiler, yes_no(kHaveCuda), yes_no(kHaveMpi), kBlas);
}

std::string version_text() {
  return fmt::format("moelab {}\n  git revision  {}\n  build type    {}\n  compiler      {}\n  CUDA          {}\n"
                     "  MPI           {}\n  BLAS/LAPACK   {}",
                     kVersion, git_revision(), kBuildType, kCompiler, yes_no(kHaveCuda), yes_no(kHaveMpi), kBlas);
}

}  // namespace moelab
