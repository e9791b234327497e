// The region-mass Monte-Carlo behind one interface, with the CPU reference and the CUDA sibling
// (STYLE.md, "CUDA beside host code"): a RegionMassSampler counts the routing regions U_S hit by the
// points of one routing draw (granularity paper, Eq. 2.1, Lemma 3.2). make_region_mass_sampler picks
// the implementation for a resolved Backend; the CUDA one owns a device context (cuBLAS handle,
// batch buffers: kernels/routing_masses.cuh) kept across every draw of the sampler's life, so a study
// point or a claim creates one sampler and reuses it for all its draws.
//
// region_mass_draws is the experiment both the studies (routing.balance, routing.mass_histogram) and
// the claim routing.lemma32.region_masses run: draws t = 0 .. draws - 1 of Gaussian routers.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "moelab/core/backend.hpp"
#include "moelab/routing/region_masses.hpp"

namespace moelab::routing {

class RegionMassSampler {
 public:
  virtual ~RegionMassSampler() = default;
  virtual Backend backend() const = 0;
  /// Counts per region of points 0 .. points - 1 of routing draw `draw` (Philox addresses of
  /// region_masses.hpp), routed by `router`. points < 2^32.
  virtual RegionHistogram histogram(const Router& router, InputLaw law, std::uint64_t points, std::uint64_t seed,
                                    std::uint64_t draw) = 0;
  /// Region ranks of points [first, first + out.size()) of draw `draw`, in order.
  virtual void route(const Router& router, InputLaw law, std::uint64_t seed, std::uint64_t draw, std::uint64_t first,
                     std::span<std::uint64_t> out) = 0;
  /// True when several host threads may call one sampler at once (the CPU reference: each call is
  /// independent); false for a device context, whose draws run one after the other.
  virtual bool concurrent_draws() const = 0;
};

/// The sampler for a resolved backend: Backend::cpu is the reference (each call single-threaded, so
/// draws parallelise across threads); Backend::cuda the device sibling (kernels/routing_masses.cu).
/// Backend::cuda where the CUDA backend cannot run (a build without CUDA, no usable device) throws
/// RuntimeFailure naming the reason and `--backend` (core/backend_factory.hpp).
std::unique_ptr<RegionMassSampler> make_region_mass_sampler(Backend backend);

/// The CUDA path's limit on k (its top-k work arrays live in registers).
bool sampler_supports(Backend backend, int k);

/// One routing experiment: Gaussian routers R ~ N(0, I) (m x d), top-k, `points` points per draw.
struct RegionMassExperiment {
  int m = 0, k = 0, d = 0;
  InputLaw law = InputLaw::gaussian;
  ScorePath path = ScorePath::automatic;
  std::uint64_t points = 0;
};

/// Draws t = 0 .. draws - 1: R = gaussian_routing_vectors(m, d, seed, t) and the region histogram of
/// its `points` points (seed, draw t), summarised. In parallel over draws when the sampler allows it,
/// else one after the other; results in draw order either way. `on_draw` is called after each draw
/// (from any thread); `masses`, when given, receives C mu_hat(U_S) of every region of every draw.
std::vector<RegionMassSummary> region_mass_draws(RegionMassSampler& sampler, const RegionMassExperiment& e,
                                                 std::int64_t draws, std::uint64_t seed,
                                                 const std::function<void()>& on_draw = {},
                                                 std::vector<std::vector<double>>* masses = nullptr);

}  // namespace moelab::routing
