// Backend resolution: cpu is always cpu; auto never fails and picks only validated CUDA paths; cuda is
// refused (with a reason) wherever it cannot run, and runs where moelab has CUDA, a device and a path
// (experimental or validated).
#include "moelab/core/backend.hpp"
#include "moelab/core/backend_probe.hpp"

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

// ---- the usable-device decision: a pure function of (compute capability, runtime and
// driver versions, the build's architectures), tested here where no GPU exists ----

TEST_CASE("CMAKE_CUDA_ARCHITECTURES entries parse into machine code and PTX", "[core]") {
  const auto a = parse_cuda_architectures("90");
  REQUIRE(a.size() == 1);
  CHECK((a[0].arch == 90 && a[0].sass && a[0].ptx));
  const auto b = parse_cuda_architectures("80-real;90a-virtual,100");
  REQUIRE(b.size() == 3);
  CHECK((b[0].arch == 80 && b[0].sass && !b[0].ptx));
  CHECK((b[1].arch == 90 && !b[1].sass && b[1].ptx));
  CHECK((b[2].arch == 100 && b[2].sass && b[2].ptx));
  const auto c = parse_cuda_architectures("native");
  REQUIRE(c.size() == 1);
  CHECK(c[0].arch == 0);
  CHECK(parse_cuda_architectures("").empty());
}

TEST_CASE("a CUDA device is usable only with a kernel image it can run and a new enough driver", "[core]") {
  const auto sm90 = parse_cuda_architectures("90");             // the default build: sm_90 + compute_90
  const auto sm90_real = parse_cuda_architectures("90-real");   // machine code only
  auto facts = [](int major, int minor, int runtime, int driver) { return CudaDeviceFacts{major, minor, runtime, driver}; };
  // H100 / H200 (9.0) with a matching driver: the sm_90 machine code runs.
  CHECK(cuda_device_usability(facts(9, 0, 13000, 13000), sm90).usable);
  CHECK(cuda_device_usability(facts(9, 0, 13000, 13020), sm90_real).usable);
  // A100 (8.0), L4 (8.9): below 9.0, no image (PTX compute_90 cannot run on 8.x): refused, and the
  // reason names the build and the fix.
  for (int minor : {0, 6, 9}) {
    const CudaUsability u = cuda_device_usability(facts(8, minor, 13000, 13000), sm90);
    CHECK_FALSE(u.usable);
    CHECK(u.reason.find("no kernel image") != std::string::npos);
    CHECK(u.reason.find("CMAKE_CUDA_ARCHITECTURES=8") != std::string::npos);
  }
  // Blackwell (10.0, 12.0): no sm_10x machine code, but the compute_90 PTX JIT-compiles ...
  CHECK(cuda_device_usability(facts(10, 0, 13000, 13000), sm90).usable);
  CHECK(cuda_device_usability(facts(12, 0, 13000, 13010), sm90).usable);
  // ... not when the build holds machine code only, nor when the driver is older than the runtime.
  CHECK_FALSE(cuda_device_usability(facts(10, 0, 13000, 13000), sm90_real).usable);
  CHECK_FALSE(cuda_device_usability(facts(10, 0, 13020, 13000), sm90).usable);
  // Runtime/driver: an older driver major cannot load the runtime (reported, not a silent skip);
  // an older minor of the same major runs machine code (minor-version compatibility).
  const CudaUsability old_driver = cuda_device_usability(facts(9, 0, 13000, 12080), sm90);
  CHECK_FALSE(old_driver.usable);
  CHECK(old_driver.reason.find("driver supports CUDA 12.8") != std::string::npos);
  CHECK(cuda_device_usability(facts(9, 0, 13020, 13000), sm90).usable);
  CHECK_FALSE(cuda_device_usability(facts(9, 0, 13000, 0), sm90).usable);  // no driver
  // sm_90 machine code runs on 9.x but not on 10.x (binary compatibility is within one major).
  CHECK(cuda_device_usability(facts(9, 0, 13000, 13000), parse_cuda_architectures("90-real")).usable);
  CHECK_FALSE(cuda_device_usability(facts(9, 0, 13000, 13000), parse_cuda_architectures("100-real")).usable);
  // An architecture list that cannot be read here defers to the kernel probe of the GPU tests.
  CHECK(cuda_device_usability(facts(9, 0, 13000, 13000), parse_cuda_architectures("native")).usable);
  CHECK_FALSE(cuda_device_usability(facts(9, 0, 13000, 13000), {}).usable);  // built for nothing
}

TEST_CASE("the backend report names the state and agrees with availability", "[core]") {
  bool usable = true;
  const std::string report = cuda_backend_report(&usable);
  CHECK_FALSE(report.empty());
  CHECK(usable == cuda_backend_available());
}
