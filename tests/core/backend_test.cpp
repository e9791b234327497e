// Backend resolution: cpu is always cpu; auto never fails and picks only validated CUDA paths; cuda is
// refused (with a reason) wherever it cannot run, and runs where moelab has CUDA, a device and a path
// (experimental or validated).
#include "moelab/core/backend.hpp"

#include <catch2/catch.hpp>

using namespace moelab;

TEST_CASE("backend requests parse and resolve", "[core]") {
  CHECK(parse_backend("cpu") == BackendRequest::cpu);
  CHECK(parse_backend("cuda") == BackendRequest::cuda);
  CHECK(parse_backend("auto") == BackendRequest::automatic);
  CHECK_FALSE(parse_backend("gpu").has_value());
  for (CudaPath path : {CudaPath::none, CudaPath::experimental, CudaPath::validated}) {
    CHECK(resolve_backend(BackendRequest::cpu, path) == Backend::cpu);
    CHECK(resolve_backend(BackendRequest::automatic, path).has_value());
  }
  std::string why;
  CHECK_FALSE(resolve_backend(BackendRequest::cuda, CudaPath::none, &why).has_value());
  CHECK_FALSE(why.empty());
  const bool device = cuda_backend_available();
  CHECK(resolve_backend(BackendRequest::automatic, CudaPath::validated) == (device ? Backend::cuda : Backend::cpu));
  // An experimental path is never picked by auto, only by an explicit request.
  CHECK(resolve_backend(BackendRequest::automatic, CudaPath::experimental) == Backend::cpu);
  CHECK(resolve_backend(BackendRequest::cuda, CudaPath::experimental).has_value() == device);
  CHECK(resolve_backend(BackendRequest::cuda, CudaPath::validated).has_value() == device);
}
