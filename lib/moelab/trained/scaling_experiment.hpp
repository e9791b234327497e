// Scaling laws measured on trained MoEs (scaling paper, "Generalization and Scaling Laws for
// Mixture-of-Experts Transformers", arXiv:2604.09175, Theorem 4.3 and Sec. 5, as quoted in
// /work/shared/papers/scaling-laws-moe-transformers.review.txt), on teacher-student data
// (moe/teacher_student.hpp: a random teacher MoE, x ~ N(0, I_d), normalized test MSE).
//
// One axis varies at a time, the rest of the student held at its base:
//   active   the expert width w (active parameters N_act = router + k experts), online data;
//   data     the size D of a fixed training set (reshuffled every epoch), the same number of steps;
//   experts  the number of experts E at fixed k and w (N_act nearly fixed), online data.
// The fitted law is log L = c - alpha log x by weighted least squares (core/stats.hpp WLS; weights
// 1/Var(log mean L) = (mean / standard error)^2 over seeds), the exponent's standard error from
// (X'WX)^-1 and, since few seeds estimate the weights roughly, also scaled by sqrt(chi2 / dof) when
// that exceeds 1.
// Predictions beside it: Theorem 4.3's approximation rates O(N^(-beta/d)) and O(E^(-beta/d)) bound
// the approximation ERROR (a norm of f - f*); the loss here is a squared error, so the rate of the
// loss is 2 beta / d. The data exponent is the ERM rate for squared loss with metric entropy
// proportional to N_act (log N(delta) ~ N_act log(1/delta), Lemma 3.7): excess loss ~ N_act log D / D,
// exponent 1 (up to the log). beta = 1 for the ReLU teacher (Lipschitz), d = the input dimension.
//
// Routing patterns (the referee's question: does a trained router concentrate on few patterns?):
// the top-k masks the trained student's router gives to the test inputs, counted (distinct masks)
// and as an effective number exp(H) (H = the entropy of the mask frequencies), against C(E, k) (all
// masks, the per-slot count behind Eq. 13 / Lemma 3.7's routing overhead log C(E, k) <= k log(e E/k))
// and against the same router at initialisation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "moelab/core/keys.hpp"
#include "moelab/moe/moe_model.hpp"
#include "moelab/trained/fit_moe.hpp"

namespace moelab::trained {

enum class ScalingAxis { active, data, experts };
const char* to_string(ScalingAxis a);

struct ScalingSpec {
  int d = 8;
  int teacher_E = 16, teacher_k = 2, teacher_w = 16;  // teacher experts, active, width
  int E = 8, k = 2, w = 8;                            // student base
  std::int64_t steps = 2000, batch = 128;
  std::int64_t train_size = 0;                        // 0: online (the active and experts axes)
  std::int64_t test_size = 4096;
  double lr = 1e-2;
  Gating gating;  // the student's gate and routing (the teacher keeps the defaults)
  void validate() const;
  moe::MoeShape teacher() const;
  moe::MoeShape student() const;
};

/// spec with the axis set to value (w, D or E).
ScalingSpec at_axis(ScalingSpec spec, ScalingAxis axis, std::int64_t value);

struct RoutingUsage {
  int distinct = 0;            // distinct masks over the inputs
  double effective = 0.0;      // exp(entropy of mask frequencies)
};
/// The masks of `masks` counted (file comment).
RoutingUsage routing_usage(const std::vector<std::uint64_t>& masks);

struct ScalingRun {
  double nmse = 0.0;
  double init_nmse = 0.0;
  double mean_k = 0.0;  // mean active experts per test input after training (k under top-k)
  RoutingUsage trained, initial;
};

/// One run: teacher, student and data seeds from key.with("teacher" | "student" | "data", trial).
ScalingRun run_scaling_trial(const ScalingSpec& spec, const RngKey& key, std::int64_t trial);

/// log L = c - alpha log x, weighted (weights (mean/se)^2).
struct PowerFit {
  double exponent = 0.0;    // alpha
  double se = 0.0;          // from (X'WX)^-1
  double se_scaled = 0.0;   // times max(1, sqrt(chi2 / dof))
  double intercept = 0.0;   // c
  double chi2_dof = 0.0;    // NaN with 2 points
};
/// x > 0, mean > 0, se > 0 (points with se = 0 get the smallest positive relative se of the others).
PowerFit fit_power_law(const std::vector<double>& x, const std::vector<double>& mean, const std::vector<double>& se);

}  // namespace moelab::trained
