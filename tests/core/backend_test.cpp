// Backend resolution: cpu is always cpu; auto never fails; cuda is refused (with a reason) wherever it
// cannot run, and only runs where moelab has CUDA, a device and a CUDA path.
#include "moelab/core/backend.hpp"

#include <catch2/catch.hpp>

using namespace moelab;

TEST_CASE("backend requests parse and resolve", "[core]") {
  CHECK(parse_backend("cpu") == BackendRequest::cpu);
  CHECK(parse_backend("cuda") == BackendRequest::cuda);
  CHECK(parse_backend("auto") == BackendRequest::automatic);
  CHECK_FALSE(parse_backend("gpu").has_value());
  for (bool path : {false, true}) {
    CHECK(resolve_backend(BackendRequest::cpu, path) == Backend::cpu);
    CHECK(resolve_backend(BackendRequest::automatic, path).has_value());
  }
  std::string why;
  CHECK_FALSE(resolve_backend(BackendRequest::cuda, /*has_cuda_path=*/false, &why).has_value());
  CHECK_FALSE(why.empty());
  const bool device = cuda_backend_available();
  CHECK(resolve_backend(BackendRequest::automatic, true) == (device ? Backend::cuda : Backend::cpu));
  CHECK(resolve_backend(BackendRequest::cuda, true).has_value() == device);
}
