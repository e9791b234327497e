// AdamW over several steps against torch.optim.AdamW (tests/data/gen_adamw_reference.py, committed
// with its output tests/data/adamw_torch_reference.txt): three steps with different gradients and
// moelab's cosine decay, in double. One step cannot tell the bias corrections 1 - beta^t apart from a
// wrong exponent (at t = 1 they agree), so the reference has three, and a control computes the
// trajectory with a wrong exponent here and requires it to be rejected.
#include "moelab/moe/adamw.hpp"

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include <catch2/catch.hpp>
#include "topic_test_support.hpp"

using namespace moelab::moe;

namespace {

std::map<std::string, std::vector<double>> read_reference() { return moelab::test::read_keyed_numbers("tests/data/adamw_torch_reference.txt"); }

Eigen::VectorXd vec(const std::vector<double>& v) { return Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size())); }

/// Largest |a_i - b_i| / |b_i| (the reference has no entry near zero: |theta| >= 0.33, |m|, |v| > 1e-6).
double max_rel(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  REQUIRE(a.size() == b.size());
  return ((a - b).array().abs() / b.array().abs()).maxCoeff();
}

/// AdamW written out here with the bias corrections 1 - beta^e(t) for a chosen exponent e(t) of the
/// 1-based step t (the right one is e(t) = t), so that a control can take a wrong one.
template <class Exponent>
std::vector<Eigen::VectorXd> adamw_by_hand(const AdamWConfig& cfg, Eigen::VectorXd theta, const std::vector<Eigen::VectorXd>& grads,
                                           Exponent exponent) {
  Eigen::VectorXd m = Eigen::VectorXd::Zero(theta.size()), v = m;
  std::vector<Eigen::VectorXd> out;
  for (std::size_t s = 0; s < grads.size(); ++s) {
    const double t = static_cast<double>(s + 1), lr = cosine_lr(cfg, static_cast<std::int64_t>(s));
    const Eigen::VectorXd& g = grads[s];
    theta *= 1.0 - lr * cfg.weight_decay;
    m = cfg.beta1 * m + (1.0 - cfg.beta1) * g;
    v = cfg.beta2 * v + (1.0 - cfg.beta2) * g.cwiseProduct(g);
    const double bc1 = 1.0 - std::pow(cfg.beta1, exponent(t)), bc2 = 1.0 - std::pow(cfg.beta2, exponent(t));
    theta -= (lr / bc1) * m.cwiseQuotient((v.cwiseSqrt() / std::sqrt(bc2)).array().matrix() + Eigen::VectorXd::Constant(v.size(), cfg.eps));
    out.push_back(theta);
  }
  return out;
}

}  // namespace

TEST_CASE("AdamW with the cosine schedule equals torch.optim.AdamW over three steps with different gradients", "[moe][adamw]") {
  const auto ref = read_reference();
  const auto& c = ref.at("config");
  REQUIRE(c.size() == 7);
  AdamWConfig cfg;
  cfg.lr = c[0], cfg.beta1 = c[1], cfg.beta2 = c[2], cfg.eps = c[3], cfg.weight_decay = c[4], cfg.final_lr_fraction = c[5];
  cfg.total_steps = static_cast<std::int64_t>(c[6]);
  REQUIRE(cfg.total_steps == 3);
  Eigen::VectorXd theta = vec(ref.at("theta_0"));
  REQUIRE(theta.size() == 7);  // 4 through the AVX2 body, 3 through the scalar tail
  AdamWState<double> st;
  std::vector<Eigen::VectorXd> grads;
  // Tolerance 1e-12 relative: both sides compute the same IEEE double operations, moelab with two
  // fused multiply-adds (b1 m + (1 - b1) g, b2 v + (1 - b2) g^2) where torch rounds twice, and torch's
  // LambdaLR forms lr_t as lr * factor where moelab forms it in another order: a few ulp (~1e-15) per
  // step, so 1e-12 leaves three orders of magnitude and is still far below any formula's effect (the
  // control below moves theta by > 1e-3 relative).
  const double tol = 1e-12;
  for (int step = 1; step <= 3; ++step) {
    INFO("step " << step);
    const std::string s = std::to_string(step);
    CHECK_THAT(cosine_lr(cfg, step - 1), Catch::Matchers::WithinRel(ref.at("lr_" + s).at(0), tol));
    grads.push_back(vec(ref.at("grad_" + s)));
    adamw_update(theta, grads.back(), st, cfg);
    CHECK(st.step == step);
    const double dt = max_rel(theta, vec(ref.at("theta_" + s)));
    const double dm = max_rel(st.m, vec(ref.at("m_" + s)));
    const double dv = max_rel(st.v, vec(ref.at("v_" + s)));
    INFO("max relative difference: theta " << dt << ", m " << dm << ", v " << dv);
    CHECK(dt <= tol);
    CHECK(dm <= tol);
    CHECK(dv <= tol);
  }

  // The same trajectory written out here, with the right exponent t, agrees with torch (a check of the
  // by-hand form the controls perturb).
  const Eigen::VectorXd theta0 = vec(ref.at("theta_0"));
  const auto right = adamw_by_hand(cfg, theta0, grads, [](double t) { return t; });
  for (int step = 1; step <= 3; ++step) CHECK(max_rel(right[step - 1], vec(ref.at("theta_" + std::to_string(step)))) <= tol);

  // Control: the bias corrections with the exponent frozen at 1 (1 - beta, a plausible slip). At step 1
  // it is the right formula, so a one-step test passes it; at steps 2 and 3 it must be rejected.
  const auto frozen = adamw_by_hand(cfg, theta0, grads, [](double) { return 1.0; });
  CHECK(max_rel(frozen[0], vec(ref.at("theta_1"))) <= tol);
  for (int step = 2; step <= 3; ++step) {
    const double d = max_rel(frozen[step - 1], vec(ref.at("theta_" + std::to_string(step))));
    INFO("step " << step << ": exponent 1 is " << d << " relative away");
    CHECK(d > 1e3 * tol);
  }
  // Control: the exponent t + 1 (the 0-based step counted once too often) is rejected from step 1.
  const auto shifted = adamw_by_hand(cfg, theta0, grads, [](double t) { return t + 1.0; });
  for (int step = 1; step <= 3; ++step) CHECK(max_rel(shifted[step - 1], vec(ref.at("theta_" + std::to_string(step)))) > 1e3 * tol);
}
