// The compositional task (trained/compositional_task.hpp): rule application, the one-hot encoding,
// determinism, the OOD split (disjoint, its size, every rule seen at every position), the Bayes
// ceiling on hand-built cases; the cross-entropy gradient against finite differences.
#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include <catch2/catch.hpp>

#include "moelab/trained/compositional_task.hpp"
#include "moelab/trained/fit_moe.hpp"

using namespace moelab;
using namespace moelab::trained;
using Catch::Matchers::WithinAbs;

TEST_CASE("compositional task: every row of every feature follows the feature's rule", "[trained][compositional]") {
  for (int M : {1, 2, 5}) {
    const CompositionalTask task(8, 5, M, 3, 0.25, 11, 12);
    const int per = task.panels() + 1;
    for (bool ood : {false, true}) {
      if (ood && M == 1) continue;
      const auto data = task.draw(200, 13, StreamTag::moe_train_data, ood);
      for (const auto& p : data.problems) {
        REQUIRE(static_cast<int>(p.combination.size()) == M);
        for (int f = 0; f < M; ++f) {
          const Rule& r = task.rules()[static_cast<std::size_t>(p.combination[static_cast<std::size_t>(f)])];
          for (int row = 0; row < task.rows(); ++row) {
            const int* v = p.values.data() + f * per + 3 * row;
            REQUIRE(v[0] >= 0);
            REQUIRE(v[0] < 5);
            REQUIRE(v[1] >= 0);
            REQUIRE(v[1] < 5);
            // Independent evaluation of the affine rule (not through Rule::apply).
            REQUIRE(v[2] == ((r.alpha * v[0] + r.beta * v[1] + r.gamma) % 5));
          }
        }
      }
    }
  }
}

TEST_CASE("compositional task: rules are distinct affine maps and data are a function of the seeds", "[trained][compositional]") {
  const CompositionalTask a(8, 5, 3, 3, 0.25, 21, 22), b(8, 5, 3, 3, 0.25, 21, 22), c(8, 5, 3, 3, 0.25, 23, 22);
  std::set<int> codes;
  for (const auto& r : a.rules()) codes.insert(r.alpha * 25 + r.beta * 5 + r.gamma);
  CHECK(codes.size() == 8);
  bool differs = false;
  for (std::size_t i = 0; i < 8; ++i) differs = differs || a.rules()[i].alpha != c.rules()[i].alpha || a.rules()[i].gamma != c.rules()[i].gamma;
  CHECK(differs);  // another rules seed gives other rules
  const auto da = a.draw(100, 5, StreamTag::moe_train_data, false), db = b.draw(100, 5, StreamTag::moe_train_data, false);
  CHECK(da.X == db.X);
  CHECK(da.labels == db.labels);
  const auto dc = a.draw(100, 6, StreamTag::moe_train_data, false);
  CHECK_FALSE(da.X == dc.X);
}

TEST_CASE("compositional task: one-hot encoding has one value per shown panel and the label is the hidden one",
          "[trained][compositional]") {
  const CompositionalTask task(4, 3, 2, 3, 0.25, 1, 2);
  const auto data = task.draw(50, 3, StreamTag::moe_test_data, false);
  REQUIRE(data.X.rows() == task.input_dim());
  const int per = task.panels() + 1;
  for (Eigen::Index i = 0; i < data.X.cols(); ++i) {
    const auto& p = data.problems[static_cast<std::size_t>(i)];
    for (int f = 0; f < task.M(); ++f) {
      for (int q = 0; q < task.panels(); ++q) {
        const auto block = data.X.col(i).segment((f * task.panels() + q) * task.V(), task.V());
        REQUIRE(block.sum() == 1.0);
        REQUIRE(block(p.values[static_cast<std::size_t>(f * per + q)]) == 1.0);
      }
      REQUIRE(data.labels[static_cast<std::size_t>(i * task.M() + f)] == p.values[static_cast<std::size_t>(f * per + per - 1)]);
    }
  }
}

TEST_CASE("compositional task: the OOD split is disjoint, of the stated size, and leaves every rule at every position",
          "[trained][compositional]") {
  // R = 4, M = 3: all 64 combinations enumerated.
  const int R = 4, M = 3;
  const CompositionalTask task(R, 5, M, 3, 0.25, 31, 32);
  int ood = 0;
  std::vector<std::vector<int>> seen_id(M, std::vector<int>(R, 0));
  for (int c = 0; c < 64; ++c) {
    const std::vector<int> comb = {c / 16, (c / 4) % 4, c % 4};
    if (task.is_ood(comb)) {
      ++ood;
    } else {
      for (int f = 0; f < M; ++f) seen_id[static_cast<std::size_t>(f)][static_cast<std::size_t>(comb[static_cast<std::size_t>(f)])] = 1;
    }
  }
  // Each combination is OOD with probability 1/4 independently: 64 combinations, sd = sqrt(64 * 3/16)
  // = 3.5; 4 sd around 16.
  CHECK(std::abs(ood - 16) <= 14);
  CHECK(ood > 0);
  for (const auto& row : seen_id)
    for (int s : row) CHECK(s == 1);
  // Sampled problems land on the side asked for (disjoint sets), and M = 1 has no OOD combination.
  for (const auto& p : task.draw(300, 7, StreamTag::moe_train_data, false).problems) REQUIRE_FALSE(task.is_ood(p.combination));
  for (const auto& p : task.draw(300, 7, StreamTag::moe_test_data, true).problems) REQUIRE(task.is_ood(p.combination));
  const CompositionalTask one(8, 5, 1, 3, 0.25, 31, 32);
  for (int r = 0; r < 8; ++r) CHECK_FALSE(one.is_ood({r}));
  // With fraction 0 nothing is held out.
  const CompositionalTask none(4, 5, 3, 3, 0.0, 31, 32);
  for (int c = 0; c < 64; ++c) CHECK_FALSE(none.is_ood({c / 16, (c / 4) % 4, c % 4}));
}

TEST_CASE("compositional task: with few rule tuples the split is two-sided at every seed, and both sides sample",
          "[trained][compositional][hardening]") {
  // R = 2, M = 2: 4 tuples, each OOD with probability 1/4, so about 1 split seed in 3 once put them
  // all in-distribution (then every OOD draw failed after 100,000 attempts: exit 3).
  for (std::uint64_t split = 1; split <= 64; ++split) {
    INFO("split seed " << split);
    const CompositionalTask task(2, 5, 2, 3, 0.25, 7, split);
    int ood = 0;
    for (int c = 0; c < 4; ++c) ood += task.is_ood({c / 2, c % 2});
    CHECK(ood >= 1);
    CHECK(ood <= 3);
    CHECK(task.ood_count() == ood);
    for (const auto& p : task.draw(20, 3, StreamTag::moe_test_data, true).problems) CHECK(task.is_ood(p.combination));
    for (const auto& p : task.draw(20, 3, StreamTag::moe_train_data, false).problems) CHECK_FALSE(task.is_ood(p.combination));
  }
  // A fraction near 1: the in-distribution side is kept non-empty the same way.
  const CompositionalTask most(2, 5, 2, 3, 0.999, 7, 1);
  CHECK(most.ood_count() <= 3);
  CHECK(most.draw(10, 3, StreamTag::moe_train_data, false).problems.size() == 10);
}

TEST_CASE("compositional task: the Bayes ceiling on cases worked by hand", "[trained][compositional]") {
  // One rule: nothing is ambiguous, the Bayes predictor is always right.
  const CompositionalTask single(1, 5, 3, 3, 0.0, 1, 2);
  for (const auto& p : single.draw(100, 3, StreamTag::moe_train_data, false).problems) CHECK(single.bayes_correct(p) == 1.0);
  // Every affine rule of Z_2 (8 of them), 2 rows (one context row). Context row (0, 0 -> 0) leaves the
  // rules with gamma = 0: (a, b) -> a, b, a + b, 0 on the query (1, 1): answers 1, 1, 0, 0: a tie of two
  // values, so the predictor is right with probability 1/2 whatever the truth.
  const CompositionalTask all(8, 2, 1, 2, 0.0, 5, 6);
  CompositionalTask::Problem p;
  p.combination = {0};
  p.values = {0, 0, 0, 1, 1, 0};
  CHECK(all.bayes_correct(p) == 0.5);
  // Context (1, 0 -> 1): consistent rules alpha + gamma = 1: (1,0,0), (1,1,0), (0,0,1), (0,1,1); on
  // the query (0, 1) they answer 0, 1, 1, 0: again a tie; on the query (0, 0): 0, 0, 1, 1: a tie.
  p.values = {1, 0, 1, 0, 1, 1};
  CHECK(all.bayes_correct(p) == 0.5);
  // Two features, each a tie: 1/4; a truth outside the most voted values gives 0.
  const CompositionalTask two(8, 2, 2, 2, 0.0, 5, 6);
  CompositionalTask::Problem q;
  q.combination = {0, 0};
  q.values = {0, 0, 0, 1, 1, 0, 1, 0, 1, 0, 1, 1};
  CHECK(two.bayes_correct(q) == 0.25);
  // A truth outside the most voted values: one rule, context that rule, an answer it does not give.
  const CompositionalTask one(1, 5, 1, 2, 0.0, 7, 8);
  const Rule& r = one.rules()[0];
  CompositionalTask::Problem w;
  w.combination = {0};
  w.values = {2, 3, r.apply(2, 3, 5), 4, 1, (r.apply(4, 1, 5) + 1) % 5};
  CHECK(one.bayes_correct(w) == 0.0);
  w.values[5] = r.apply(4, 1, 5);
  CHECK(one.bayes_correct(w) == 1.0);
}

TEST_CASE("cross-entropy: value and gradient against finite differences and a hand-computed case", "[trained][fit]") {
  // Hand case: one sample, one head, logits (0, log 3): softmax (1/4, 3/4); label 1: loss log(4/3).
  Mat Y(2, 1);
  Y << 0.0, std::log(3.0);
  const std::vector<int> lab = {1};
  Mat dY;
  CHECK_THAT(cross_entropy(Y, lab, 1, 2, &dY), WithinAbs(std::log(4.0 / 3.0), 1e-15));
  CHECK_THAT(dY(0, 0), WithinAbs(0.25, 1e-15));
  CHECK_THAT(dY(1, 0), WithinAbs(-0.25, 1e-15));
  // Random case: 3 heads of 4 classes, 5 samples; central differences, step 1e-6: error O(h^2) ~ 1e-12
  // plus rounding ~ 1e-16 / 1e-6 = 1e-10 relative to the loss: tolerance 1e-8.
  Mat Z = Mat::Random(12, 5);
  std::vector<int> labels(15);
  for (int i = 0; i < 15; ++i) labels[static_cast<std::size_t>(i)] = (i * 7) % 4;
  cross_entropy(Z, labels, 3, 4, &dY);
  for (Eigen::Index r = 0; r < Z.rows(); ++r)
    for (Eigen::Index c = 0; c < Z.cols(); ++c) {
      Mat Zp = Z, Zm = Z;
      Zp(r, c) += 1e-6, Zm(r, c) -= 1e-6;
      const double fd = (cross_entropy(Zp, labels, 3, 4, nullptr) - cross_entropy(Zm, labels, 3, 4, nullptr)) / 2e-6;
      REQUIRE_THAT(dY(r, c), WithinAbs(fd, 1e-8));
    }
}

TEST_CASE("accuracy counts exact matches over all heads", "[trained][fit]") {
  Mat Y(4, 3);  // 2 heads x 2 classes, 3 samples
  Y << 1, 0, 1,  //
      0, 1, 0,   //
      0, 1, 1,   //
      1, 0, 0;
  // argmax per head: sample 0 (0, 1), sample 1 (1, 0), sample 2 (0, 0).
  const std::vector<int> lab = {0, 1, 1, 1, 0, 0};
  const auto a = accuracy(Y, lab, 2, 2);
  CHECK_THAT(a.exact, WithinAbs(2.0 / 3.0, 1e-15));
  CHECK_THAT(a.per_head, WithinAbs(5.0 / 6.0, 1e-15));
}
