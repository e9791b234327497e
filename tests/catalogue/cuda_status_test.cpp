// Which studies and claims have a CUDA path, and at which status (core/backend.hpp: `auto` takes a
// validated path where a usable device exists, never an experimental one). A path is promoted to
// validated only after its device run agreed with the CPU; docs/gpu.md ("Validation") records the
// run: NVIDIA H200, revision a8b58ee, the agreement figures of each row below.
#include <map>
#include <string>

#include <catch2/catch.hpp>

#include "moelab/catalogue/catalogue.hpp"
#include "moelab/core/backend.hpp"

using moelab::BackendRequest;
using moelab::CudaPath;

TEST_CASE("the CUDA paths that agreed with the CPU on a device are validated, the trainers stay experimental", "[catalogue][backend]") {
  const std::map<std::string, CudaPath> expected = {
      {"routing.balance", CudaPath::validated},         // 48 rows identical to the CPU's
      {"routing.mass_histogram", CudaPath::validated},  // the same sampler; gpu:routing_region_masses passed
      {"spectra.esd", CudaPath::validated},             // 300 rows (Rademacher) within 1.8e-12 relative
      {"noisy.excess_risk", CudaPath::validated},       // Fig. 3 at 20 trials: excess_mean within 7.3e-8
      {"moe.teacher_student", CudaPath::experimental},  // gpu:moe_trainer failed its TF32 case on the H200
      {"trained.sraven", CudaPath::experimental},       // the transformer block's device trainer: not yet run on a device
  };
  std::map<std::string, CudaPath> found;
  for (const auto& s : moelab::catalogue::studies())
    if (s.cuda != CudaPath::none) found[s.name] = s.cuda;
  CHECK(found == expected);
  // What that means for a run: auto takes the validated paths only (where a device is usable).
  for (const auto& [name, path] : expected) {
    CAPTURE(name);
    const auto b = moelab::resolve_backend(BackendRequest::automatic, path);
    REQUIRE(b.has_value());
    CHECK((*b == moelab::Backend::cuda) == (path == CudaPath::validated && moelab::cuda_backend_available()));
  }
}

TEST_CASE("the claims with a device path are the region-mass claim only, on the validated sampler", "[catalogue][claims][backend]") {
  std::map<std::string, CudaPath> found;
  for (const auto& c : moelab::catalogue::claims().all())
    if (c.cuda != CudaPath::none) found[c.id] = c.cuda;
  CHECK(found == std::map<std::string, CudaPath>{{"routing.lemma32.region_masses", CudaPath::validated}});
}
