// The fixed-set trainer (trained/fit_moe.hpp) on cases with known answers: a linear expert trained by
// fit_regression reaches the least-squares map that generated its data; the epoch order (a Philox
// Fisher-Yates permutation per epoch, partial last batch) read back through the per-step losses;
// fit_classifier starts at log(classes) and fits linearly separable labels.
#include "moelab/trained/fit_moe.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <vector>

#include <catch2/catch.hpp>

#include "moelab/core/distributions.hpp"
#include "moelab/moe/moe_model.hpp"

using namespace moelab;
using namespace moelab::trained;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

moe::MoeShape one_linear_expert(int d, int d_out) {
  moe::MoeShape s;
  s.m = 1, s.k = 1, s.d = d, s.d_out = d_out, s.w = 1;
  s.expert = moe::ExpertKind::linear;
  s.expert_bias = false;
  return s;
}

Eigen::MatrixXd normals(int rows, int cols, std::uint64_t trial) {
  const RandomStream rs(91, StreamTag::property_test, trial);
  Eigen::MatrixXd m(rows, cols);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) m(i, j) = rs.normal(static_cast<std::uint64_t>(j) * rows + i);
  return m;
}

/// Per-step losses of fit_regression on inputs X = 0 (the model's output is 0 whatever its
/// parameters, with no biases): the loss of a step is the mean of y^2 over its batch, which reveals
/// the samples the step visited.
std::vector<double> losses_on_zero_inputs(const std::vector<double>& y, std::int64_t batch, std::int64_t steps,
                                          std::uint64_t shuffle_seed) {
  Model f(one_linear_expert(2, 1));
  const Eigen::MatrixXd X = Eigen::MatrixXd::Zero(2, static_cast<Eigen::Index>(y.size()));
  const Eigen::MatrixXd Y = Eigen::Map<const Eigen::MatrixXd>(y.data(), 1, static_cast<Eigen::Index>(y.size()));
  FitConfig cfg;
  cfg.steps = steps, cfg.batch = batch, cfg.shuffle_seed = shuffle_seed;
  return fit_regression(f, X, Y, cfg);
}

}  // namespace

TEST_CASE("fit_regression: a linear expert reaches the least-squares map of noise-free linear data", "[trained][fit]") {
  // Y = B X exactly (d = 3 inputs, 2 outputs, n = 40 points): least squares recovers B, and the MSE at
  // B is 0. Full batch (batch >= n: the gradient is exact), AdamW with cosine decay to 0 over 4000 steps.
  const int d = 3, d_out = 2, n = 40;
  const Eigen::MatrixXd B = normals(d_out, d, 0), X = normals(d, n, 1);
  const Eigen::MatrixXd Y = B * X;
  Model f(one_linear_expert(d, d_out));
  FitConfig cfg;
  cfg.steps = 4000, cfg.batch = 64, cfg.lr = 2e-2;
  const std::vector<double> losses = fit_regression(f, X, Y, cfg);
  REQUIRE(losses.size() == 4000);
  // Step 0's loss is the zero model's MSE (PyTorch's MSELoss: mean over all entries), exactly.
  CHECK_THAT(losses.front(), WithinRel(Y.squaredNorm() / (d_out * n), 1e-14));
  const Eigen::MatrixXd W = f.w1(f.params(), 0);
  const Eigen::MatrixXd ls = Eigen::MatrixXd(X * X.transpose()).ldlt().solve(Eigen::MatrixXd(X * Y.transpose())).transpose();  // = B to rounding
  INFO("max |W - least squares| " << (W - ls).cwiseAbs().maxCoeff() << ", final batch loss " << losses.back());
  CHECK((ls - B).cwiseAbs().maxCoeff() < 1e-12);
  // AdamW's last steps move by lr_t (m / sqrt v) with lr_t -> 0, so W settles at the minimum: observed
  // 1.3e-15 from B and a last loss of 9e-31 (from ~2); 1e-10 and 1e-20 relative leave room for another
  // BLAS or compiler and still fail a fit that stalls anywhere short of the solution.
  CHECK((W - ls).cwiseAbs().maxCoeff() < 1e-10);
  CHECK(losses.back() < 1e-20 * losses.front());
  // Control: the map with its rows swapped (a transposition slip in the layout) is far from the fit.
  Eigen::MatrixXd swapped = ls;
  swapped.row(0).swap(swapped.row(1));
  CHECK((W - swapped).cwiseAbs().maxCoeff() > 1e-2);
}

TEST_CASE("fit_regression: every epoch visits each sample once, in a seeded order, with a partial last batch",
          "[trained][fit]") {
  // Samples with distinct y^2 (1, 4, 9, 16, 25): a step's loss names the samples of its batch.
  const std::vector<double> y{1, 2, 3, 4, 5};
  SECTION("batch 1: three epochs, each a permutation, not all the same; the seed fixes the order") {
    const auto l = losses_on_zero_inputs(y, 1, 15, 7);
    REQUIRE(l.size() == 15);
    std::vector<std::vector<double>> epochs;
    for (int e = 0; e < 3; ++e) {
      std::vector<double> seen(l.begin() + 5 * e, l.begin() + 5 * (e + 1));
      epochs.push_back(seen);
      std::sort(seen.begin(), seen.end());
      CHECK(seen == std::vector<double>{1, 4, 9, 16, 25});
    }
    CHECK_FALSE((epochs[0] == epochs[1] && epochs[1] == epochs[2]));
    CHECK(losses_on_zero_inputs(y, 1, 15, 7) == l);
    CHECK(losses_on_zero_inputs(y, 1, 15, 8) != l);
  }
  SECTION("batch 2 of 5: steps of 2, 2 and 1 samples per epoch, the epoch's loss-weighted sum is sum y^2") {
    const auto l = losses_on_zero_inputs(y, 2, 9, 3);
    REQUIRE(l.size() == 9);
    for (int e = 0; e < 3; ++e) CHECK_THAT(2 * l[3 * e] + 2 * l[3 * e + 1] + l[3 * e + 2], WithinRel(55.0, 1e-15));
    // The partial batch holds one sample: its loss is one of the y^2.
    for (int e = 0; e < 3; ++e) {
      const double last = l[3 * e + 2];
      CHECK(std::count(y.begin(), y.end(), std::sqrt(last)) == 1);
    }
  }
}

TEST_CASE("fit_regression: the epoch orders are uniform over the permutations", "[trained][fit]") {
  // n = 3, batch 1: 12000 epochs, each one of the 3! orders; every order has probability 1/6, so its
  // count is within 4.5 binomial SE (sqrt(12000 (1/6)(5/6)) = 40.8) of 2000. Control: the classic
  // biased shuffle (swap position i with any of the n positions) gives the orders probabilities 4/27 and
  // 5/27 (enumerated below over its 27 equally likely swap sequences): expected counts 1778 and 2222,
  // 5.4 SE from 2000, so an implementation that used it would be rejected.
  const std::vector<double> y{1, 2, 3};
  const int epochs = 12000;
  const auto l = losses_on_zero_inputs(y, 1, 3 * epochs, 11);
  std::map<std::vector<int>, int> count;
  for (int e = 0; e < epochs; ++e) {
    std::vector<int> order;
    for (int i = 0; i < 3; ++i) order.push_back(static_cast<int>(std::lround(std::sqrt(l[3 * e + i]))) - 1);
    ++count[order];
  }
  REQUIRE(count.size() == 6);
  std::map<std::vector<int>, int> biased;  // swap sequences of the biased shuffle, 27 in all
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 3; ++c) {
        std::vector<int> p{0, 1, 2};
        std::swap(p[0], p[a]), std::swap(p[1], p[b]), std::swap(p[2], p[c]);
        ++biased[p];
      }
  const double se = std::sqrt(epochs * (1.0 / 6.0) * (5.0 / 6.0));
  double worst_biased = 0.0;
  for (const auto& [order, c] : count) {
    INFO("order " << order[0] << order[1] << order[2] << ": " << c);
    CHECK(std::abs(c - epochs / 6.0) < 4.5 * se);
    worst_biased = std::max(worst_biased, std::abs(c - epochs * biased[order] / 27.0));
  }
  CHECK(worst_biased > 4.5 * se);
}

TEST_CASE("fit_classifier: the zero model starts at log(classes) and a linear expert fits separable labels",
          "[trained][fit]") {
  // 2 heads of 3 classes on d = 4 inputs, n = 200: the label of head h is the argmax of A_h x, a
  // linear rule the single linear expert (6 x 4) can represent, so the training accuracy reaches 1
  // (up to points within a hair of a decision boundary: at most 2 of 200 allowed).
  const int d = 4, heads = 2, classes = 3, n = 200;
  const Eigen::MatrixXd A = normals(heads * classes, d, 2), X = normals(d, n, 3);
  const Eigen::MatrixXd scores = A * X;
  std::vector<int> labels(static_cast<std::size_t>(n * heads));
  for (int i = 0; i < n; ++i)
    for (int h = 0; h < heads; ++h) {
      Eigen::Index arg = 0;
      scores.col(i).segment(h * classes, classes).maxCoeff(&arg);
      labels[static_cast<std::size_t>(i * heads + h)] = static_cast<int>(arg);
    }
  Model f(one_linear_expert(d, heads * classes));
  FitConfig cfg;
  cfg.steps = 3000, cfg.batch = 50, cfg.lr = 5e-2;
  const std::vector<double> losses = fit_classifier(f, X, labels, heads, classes, cfg);
  REQUIRE(losses.size() == 3000);
  // All-zero logits: softmax is uniform, the cross-entropy log 3 on every head (a sum of 100 equal
  // terms times 1/100: rounding ~1e-14 relative at most).
  CHECK_THAT(losses.front(), WithinRel(std::log(3.0), 1e-13));
  const Accuracy before = accuracy(Eigen::MatrixXd::Zero(heads * classes, n), labels, heads, classes);
  const Accuracy after = accuracy(predict(f, X), labels, heads, classes);
  INFO("per-head accuracy " << after.per_head << ", exact " << after.exact << ", final loss " << losses.back());
  CHECK(after.per_head >= 1.0 - 2.0 / (n * heads));
  CHECK(after.exact >= 1.0 - 2.0 / n);
  // Control: the untrained model (ties to class 0) is at chance level, far below.
  CHECK(before.per_head < 0.6);
  CHECK(losses.back() < 0.1 * losses.front());
}
