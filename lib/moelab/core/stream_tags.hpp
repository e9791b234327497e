// The one registry of Philox stream tags. A tag names what is drawn, so that two quantities never
// share random numbers by accident. Append only: changing a value changes every result using it.
#pragma once

#include <cstdint>

namespace moelab {

enum class StreamTag : std::uint32_t {
  test_sample = 1,        // test points (x, e) for sampled risks
  design_signal = 2,      // noiseless design X
  design_noise = 3,       // feature noise E
  beta_star = 4,          // ground-truth beta* drawn from a seed
  routing_labels = 5,     // expert membership z of each sample
  router_test = 6,        // test points of the QDA router
  gd_init = 7,            // gradient-descent start / signal bases
  orthogonal_basis = 8,   // random orthogonal matrices
  tridiagonal = 9,        // chi variates of the Dumitriu-Edelman tridiagonal models
  bounds = 10,            // learning-theory checks: samples, Rademacher signs, hypotheses
  routing_vectors = 11,   // routing vectors r_1..r_m (granularity paper) and random routers
  routing_points = 12,    // inputs x whose routing region is looked up
  routing_experts = 13,   // random constant experts u_j (granularity Lemma 3.3 / A.8)
  moe_init = 14,          // initial parameters of MoE models (teachers and students, PyTorch-style uniform)
  moe_train_data = 15,    // training inputs of the MoE trainer (online: one trial per step; fixed set: trial 0)
  moe_test_data = 16,     // test inputs of the MoE trainer
  moe_shuffle = 17,       // per-epoch permutations of a fixed MoE training set
  property_test = 100,    // tests only
};

}  // namespace moelab
