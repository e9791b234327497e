// The noisy paper's App. B.3 experiment (noisy_robustness.hpp, modular_task.hpp): the modular data,
// the cross-entropy gradient, determinism and the study's rows; [slow]: trained linear models against
// Theorem 3's closed forms, and the classification ordering of Table 3.
#include <cmath>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "moelab/core/parallel.hpp"
#include "moelab/moe/noisy_robustness.hpp"
#include "moelab/scenario/runner.hpp"
#include "moelab/scenario/study.hpp"
#include "scenario/input_error_helpers.hpp"
#include "topic_test_support.hpp"

namespace moelab::moe {
void add_studies(std::vector<StudyDef>& out);
}

// This file's own names, apart from those of the other test files compiled in its unity batch.
namespace noisy_robustness_test {

using namespace moelab;
using namespace moelab::moe;
using Catch::Matchers::Contains;

namespace {

const StudyDef& study() { return test::find_study_in(test::topic_studies<&moe::add_studies>(), "moe.noisy_robustness"); }

McBudget budget(std::int64_t trials) {
  McBudget b;
  b.trials = trials;
  b.seed = 3;
  return b;
}

}  // namespace

TEST_CASE("modular data: one active block per sample, noise on every coordinate, targets x' beta*", "[moe][modular]") {
  ModularTask task;
  task.blocks = 3, task.block_dim = 4;
  const ModularTeacher teacher(task, 11);
  const ModularSample s = teacher.draw(200, 0.5, 7, StreamTag::moe_train_data, 2);
  REQUIRE(s.clean.rows() == 12);
  REQUIRE(s.clean.cols() == 200);
  std::vector<int> count(3, 0);
  for (int i = 0; i < 200; ++i) {
    const int z = s.block[static_cast<std::size_t>(i)];
    ++count[static_cast<std::size_t>(z)];
    for (int c = 0; c < 12; ++c) {
      if (c / 4 != z) CHECK(s.clean(c, i) == 0.0);  // x = [0 .. x_z .. 0] (Eq. 1)
    }
    CHECK(s.y(0, i) == Approx(teacher.beta().segment(4 * z, 4).dot(s.clean.block(4 * z, i, 4, 1).col(0))).epsilon(1e-12));
  }
  for (int c : count) CHECK(c > 40);  // p_i = 1/3: 66.7 expected, sd 6.7; 40 is 4 sd below
  // Masking keeps exactly block z.
  const Eigen::MatrixXd m = block_masked(s.noisy, s.block, 4);
  for (int i = 0; i < 200; ++i)
    for (int c = 0; c < 12; ++c) CHECK(m(c, i) == (c / 4 == s.block[static_cast<std::size_t>(i)] ? s.noisy(c, i) : 0.0));
  // The noise scales: draw at sigma 1 minus clean is exactly 2x (draw at 0.5 minus clean).
  const ModularSample s1 = teacher.draw(200, 1.0, 7, StreamTag::moe_train_data, 2);
  CHECK(((s1.noisy - s1.clean) - 2.0 * (s.noisy - s.clean)).cwiseAbs().maxCoeff() < 1e-12);
  // Noise variance: 2400 draws of N(0, 0.25); the sample variance's sd is 0.25 sqrt(2/2400) = 0.0072; 4 sd.
  const double var = (s.noisy - s.clean).squaredNorm() / 2400.0;
  CHECK(std::abs(var - 0.25) < 4 * 0.0072);
}

TEST_CASE("cross-entropy gradient matches central differences", "[moe][modular]") {
  // Step 1e-6 in double: truncation error O(h^2 |f'''|) ~ 1e-12, rounding ~ 1e-16 / 1e-6 = 1e-10 absolute.
  Eigen::MatrixXd Y(4, 7);
  for (int i = 0; i < Y.size(); ++i) Y.data()[i] = std::sin(1.7 * i) * 2.0;
  const std::vector<int> label = {0, 3, 2, 1, 1, 0, 3};
  Eigen::MatrixXd dY;
  cross_entropy_loss(Y, label, &dY);
  double worst = 0.0;
  for (int i = 0; i < Y.size(); ++i) {
    Eigen::MatrixXd a = Y, b = Y;
    a.data()[i] += 1e-6;
    b.data()[i] -= 1e-6;
    const double fd = (cross_entropy_loss(a, label, nullptr) - cross_entropy_loss(b, label, nullptr)) / 2e-6;
    worst = std::max(worst, std::abs(fd - dY.data()[i]));
  }
  CHECK(worst < 1e-8);
  // Accuracy: argmax per column.
  Eigen::MatrixXd Z = Eigen::MatrixXd::Zero(3, 4);
  Z(0, 0) = 1, Z(2, 1) = 1, Z(1, 2) = 1, Z(2, 3) = 1;
  CHECK(accuracy(Z, {0, 2, 0, 2}) == 0.75);
}

TEST_CASE("iso-parameter dense width: the largest not above the MoE's count", "[moe][modular]") {
  ModularTask t;
  t.blocks = 4, t.block_dim = 8, t.classes = 4;
  const int W = iso_parameter_dense_width(t, 16);
  const std::int64_t moe = 4 * (16 * (8 + 1 + 4) + 4);
  CHECK(W * (32 + 1 + 4) + 4 <= moe);
  CHECK((W + 1) * (32 + 1 + 4) + 4 > moe);
}

TEST_CASE("a robustness trial is a function of (spec, key, trial): the same bytes on 1 and 2 threads", "[moe][modular]") {
  RobustnessSpec s;
  s.task.blocks = 2, s.task.block_dim = 3, s.task.classes = 3, s.task.teacher_width = 4;
  s.expert_width = 4, s.steps = 20, s.batch = 32, s.test_size = 256, s.sigma = 0.2;
  const RngKey key = RngKey::root(5).with("test");
  const int before = num_threads();
  set_num_threads(1);
  const RobustnessRun a = run_robustness_trial(s, key, 0);
  set_num_threads(2);
  const RobustnessRun b = run_robustness_trial(s, key, 0);
  set_num_threads(before);
  CHECK(a.dense_noisy == b.dense_noisy);
  CHECK(a.moe_noisy == b.moe_noisy);
  CHECK(a.moe_clean == b.moe_clean);
  CHECK(a.moe_parameters == 2 * (4 * (3 + 1 + 3) + 3));
  const RobustnessRun c = run_robustness_trial(s, key, 1);
  CHECK(c.dense_noisy != a.dense_noisy);  // another trial, other draws
}

TEST_CASE("moe.noisy_robustness rows and refusals", "[moe][study]") {
  test::check_declaration(study());
  const std::string text =
      "[params]\ntask = \"regression\"\nblocks = 2\nblock_dim = 3\nsigma = 0.3\nsteps = 200\nbatch = 64\ntest_samples = 2048\n";
  const CsvTable t = run_study_text(study(), text, budget(2));
  const TableView v(t);
  REQUIRE(v.size() == 1);
  CHECK(v.text(0, "metric") == "mse");
  CHECK(v.integer(0, "dense_parameters") == 6);
  CHECK(v.integer(0, "moe_parameters") == 6);
  // Thm 3 at this size: the sparse risk is below the dense one for every beta* (Thm 2, p_i = 1/2 < 1).
  CHECK(v.real(0, "moe_thm3_noisy") < v.real(0, "dense_thm3_noisy"));
  CHECK(v.real(0, "dense_noisy") > 0.0);
  const CsvTable again = run_study_text(study(), text, budget(2));
  CHECK(again.rows == t.rows);
  auto err = [](const std::string& txt) {
    return std::string(test::expect_input_error([&] { (void)run_study_text(study(), txt, budget(2)); }).what());
  };
  CHECK_THAT(err("[params]\ntask = \"ranking\"\nsigma = 0.1\n"), Contains("params.task"));
  CHECK_THAT(err("[params]\ntask = \"regression\"\nsigma = -0.1\n"), Contains("params.sigma"));
  CHECK_THAT(err("[params]\ntask = \"regression\"\nsigma = 0.1\nblocks = 1024\nblock_dim = 4096\n"), Contains("params.block_dim"));
}

TEST_CASE("trained linear models approach Theorem 3's Bayes risks, the MoE's drop is smaller", "[moe][modular][slow]") {
  // k = 4 blocks of 8, lambda = 1, sigma = 0.3, 4000 online steps of 256: the trained estimators are
  // within a few percent of the Bayes estimators (the excess of online AdamW with cosine decay to 0
  // is O(d / samples) = 32 / 1e6 relative). Tolerance: 5% relative of each risk, measured ~1%.
  RobustnessSpec s;
  s.task.blocks = 4, s.task.block_dim = 8;
  s.sigma = 0.3, s.steps = 4000, s.batch = 256, s.test_size = 65536;
  const RobustnessRun r = run_robustness_trial(s, RngKey::root(1).with("thm3"), 0);
  INFO("dense " << r.dense_noisy << " vs " << r.dense_bayes_noisy << "; moe " << r.moe_noisy << " vs " << r.moe_bayes_noisy);
  CHECK(std::abs(r.dense_noisy / r.dense_bayes_noisy - 1.0) < 0.05);
  CHECK(std::abs(r.moe_noisy / r.moe_bayes_noisy - 1.0) < 0.05);
  CHECK(std::abs(r.dense_clean / r.dense_bayes_clean - 1.0) < 0.05);
  CHECK(std::abs(r.moe_clean / r.moe_bayes_clean - 1.0) < 0.05);
  // Control: the MoE's measured risk is NOT the dense closed form (they differ by > 20% here).
  CHECK(std::abs(r.moe_noisy / r.dense_bayes_noisy - 1.0) > 0.2);
  CHECK(r.dense_noisy - r.dense_clean > r.moe_noisy - r.moe_clean);
}

}  // namespace noisy_robustness_test
