// The scaling paper's generalization bound set beside the generalization gap of trained MoEs, across
// active parameters N_act, training-set size D and experts E (scaling paper, "Generalization and
// Scaling Laws for Mixture-of-Experts Transformers", arXiv:2604.09175, Lemma 3.7 and its "standard ERM
// analysis", as quoted in /work/shared/papers/scaling-laws-moe-transformers.review.txt).
//
// Task: the teacher of scaling_experiment.hpp (a random MoE, ReLU experts, x ~ N(0, I_d), scalar
// output), its output divided by its standard deviation on the test inputs (so the signal has variance
// 1 and the noise level is a signal-to-noise ratio), labels y = teacher(x) / s + noise * eps,
// eps ~ N(0, 1). A student MoE (ReLU experts of width w, E experts, top-k, the Switch gate by default so
// that k = 1 trains its router) is fitted by AdamW to the MSE on a FIXED set of D points (fit_moe.hpp)
// and evaluated on `test_size` fresh points. Losses:
//   bounded  l(f(x), y) = min(1, |f(x) - y|): values in [0, B = 1], 1-Lipschitz in f(x) (Lambda = 1);
//            the loss the uniform bound below is stated for; gap = L_test - L_train;
//   mse      (f(x) - y)^2, the loss trained on; its gap, and the excess test risk test_mse - noise^2
//            (the noise is independent of x, so E test_mse = excess + noise^2 exactly).
//
// The bound. Lemma 3.7 (covering_number.hpp): log N(eps, F, ||.||_inf) <~ (P_attn + L k P_exp)
// log(kappa R M0 / eps) + L l k log(e M / k). The "standard ERM analysis" turns a sup-norm cover into a
// uniform deviation (derived here; the review does not print the step): for every centre g of an eps-cover
// Hoeffding's inequality and a union bound over the N centres give, with probability >= 1 - eta,
// |L(g) - L_D(g)| <= B sqrt((log N + log(2 / eta)) / (2 D)) for all centres at once; every f is within
// eps of a centre in sup norm, so its loss moves by at most Lambda eps on both sides:
//   sup_f |L(f) - L_D(f)| <= 2 Lambda eps + B sqrt((log N(eps) + log(2 / eta)) / (2 D)).
// Convention (the lemma leaves its constant and kappa, R, M0 open): constant 1, L = l = 1 (one MoE
// layer, one token), P_attn = the router's d E parameters (always active), P_exp = one expert's
// parameters, M = E, kappa = M0 = 1, R = max(1, ||theta||_2) of the trained student (the smallest ball
// holding it), eps = 1 / D (so 2 Lambda eps = 2 / D is negligible), eta = delta = 0.05.
// `bound` uses the lemma's routing term k log(e E / k) as printed; `bound_exact_routing` the exact
// count log C(E, k) it bounds. The rate form the scaling laws read off it is sqrt(N_act log D / D)
// (constants dropped). For the MSE the paper's ERM step gives the fast rate (excess <~
// sigma^2 (N_act log D + routing) / D, constant open): the MSE gap is compared with that shape, and
// with the exact optimism of least squares with p free parameters, 2 sigma^2 p / D, at p = N_act.
#pragma once

#include <cstdint>
#include <vector>

#include "moelab/core/keys.hpp"
#include "moelab/trained/fit_moe.hpp"
#include "moelab/trained/scaling_experiment.hpp"

namespace moelab::trained {

struct ScalingGapSpec {
  ScalingSpec model;             // d, teacher, student E / k / w, steps, batch, lr, gating; train_size = D
  double noise = 0.5;            // label noise standard deviation (signal variance 1)
  double delta = 0.05;           // the bound's failure probability eta
  void validate() const;         // model.train_size >= 2 (a fixed set), noise >= 0, 0 < delta < 1
};

struct ScalingGapRun {
  double train_loss = 0.0, test_loss = 0.0;  // bounded loss min(1, |f - y|)
  double train_mse = 0.0, test_mse = 0.0;
  double param_norm = 0.0;                   // ||theta||_2 of the trained student
  double mean_k = 0.0;                       // mean active experts per test input
  std::vector<double> loss_curve;            // training-batch MSE per step (for convergence checks)
  double gap() const { return test_loss - train_loss; }
  double mse_gap() const { return test_mse - train_mse; }
};

/// One run: teacher, data, noise, student from key.with("teacher" | "data" | "noise" | "student", trial).
/// keep_curve: keep loss_curve (else it is left empty).
ScalingGapRun run_scaling_gap_trial(const ScalingGapSpec& spec, const RngKey& key, std::int64_t trial,
                                    bool keep_curve = false);

/// The bound of the file comment and its pieces.
struct ScalingGapBound {
  double active_parameters = 0.0;  // P_attn + k P_exp = moe::active_parameter_count
  double log_covering = 0.0;       // Lemma 3.7 at eps = 1/D (routing term as printed)
  double deviation = 0.0;          // sqrt((log_covering + log(2/eta)) / (2 D))
  double bound = 0.0;              // 2 / D + deviation (B = Lambda = 1)
  double bound_exact_routing = 0.0;// the same with log C(E, k) for the routing term
  double rate_form = 0.0;          // sqrt(N_act log D / D)
};
/// R = the parameter radius (>= 1 is enforced by the caller's convention, any R > 0 accepted).
ScalingGapBound scaling_gap_bound(const ScalingSpec& model, double R, double eta);

/// Seed bootstrap of a power-law fit: samples[t][j] is seed t's value at x[j] (paired over j: the same
/// seed t has the same teacher and data at every x). `draws` resamplings of the seeds with replacement
/// (Philox (seed, bounds, draw)); each refits fit_power_law on the resampled means and standard errors.
/// Returns the 2.5% and 97.5% percentiles of the exponent; draws whose resampled means are not all > 0
/// are skipped (their share in `skipped`).
struct BootstrapInterval {
  double lo = 0.0, hi = 0.0;
  double skipped = 0.0;
};
BootstrapInterval bootstrap_power_law(const std::vector<double>& x, const std::vector<std::vector<double>>& samples,
                                      std::int64_t draws, std::uint64_t seed);

/// L = a x^(-alpha) + c with c in [0, min L): profile least squares over c (a grid of 400 values of c
/// in [0, (1 - 1e-3) min L], each a WLS fit of log(L - c) with weights ((L - c) / se)^2), the c of least
/// chi2 refined by golden-section search between its grid neighbours. Needs >= 3 points.
struct OffsetPowerFit {
  double exponent = 0.0;  // alpha
  double offset = 0.0;    // c
  double chi2_dof = 0.0;  // dof = n - 3
  double se = 0.0;        // alpha's WLS standard error at the chosen c (c held fixed)
};
OffsetPowerFit fit_power_law_offset(const std::vector<double>& x, const std::vector<double>& mean,
                                    const std::vector<double>& se);

}  // namespace moelab::trained
