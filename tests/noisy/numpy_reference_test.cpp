// The noisy topic's min-norm estimators and exact excess risks against an independent NumPy
// computation (tests/data/gen_noisy_numpy_reference.py, committed with its output): NumPy's pinv for
// the estimators and the data model's second moments for the Bayes estimators and the risk, so
// neither the solver (linalg/min_norm) nor the risk formulas (noisy/risk.cpp) are compared with
// themselves. The designs cover n < d, n = d, n > d, an expert without rows and an expert with fewer
// rows than its block.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "moelab/linalg/min_norm.hpp"
#include "moelab/noisy/risk.hpp"
#include "topic_test_support.hpp"

namespace {

using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

std::map<std::string, std::vector<double>> read_reference() { return moelab::test::read_keyed_numbers("tests/data/noisy_numpy_reference.txt"); }

Eigen::MatrixXd row_major(const std::vector<double>& v, int rows, int cols) {
  REQUIRE(v.size() == static_cast<std::size_t>(rows) * cols);
  Eigen::MatrixXd m(rows, cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) m(r, c) = v[static_cast<std::size_t>(r) * cols + c];
  return m;
}

}  // namespace

TEST_CASE("min-norm estimators and excess risks equal an independent NumPy computation", "[noisy][reference]") {
  const auto ref = read_reference();
  moelab::noisy::Model m;
  const auto& blocks = ref.at("blocks");
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const int b = static_cast<int>(blocks[i]);
    m.sigma.push_back(row_major(ref.at("sigma_" + std::to_string(i)), b, b));
    const auto& beta = ref.at("beta_" + std::to_string(i));
    m.beta_star.push_back(Eigen::Map<const Eigen::VectorXd>(beta.data(), b));
  }
  m.p = ref.at("p");
  m.sigma2 = ref.at("sigma2").at(0);
  m.check_consistent();
  const int d = m.d();
  int cases = 0;
  for (int c = 0; ref.count("case_" + std::to_string(c) + "_counts"); ++c, ++cases) {
    const std::string key = "case_" + std::to_string(c) + "_";
    const auto& counts = ref.at(key + "counts");
    int n = 0;
    for (double x : counts) n += static_cast<int>(x);
    const Eigen::MatrixXd X = row_major(ref.at(key + "X"), n, d);
    const auto& yv = ref.at(key + "y");
    const Eigen::VectorXd y = Eigen::Map<const Eigen::VectorXd>(yv.data(), n);
    INFO("case " << c << ": n = " << n << ", d = " << d);
    // The designs have condition numbers 1.3-2.7 (printed by the generator's check), so both sides'
    // solutions agree to a few ulp of their size: 1e-12 leaves three orders of magnitude of room.
    const auto dense = moelab::min_norm_solve(X, y);
    const auto& b_ref = ref.at(key + "dense_beta");
    for (int j = 0; j < d; ++j) CHECK_THAT(dense.beta(j), WithinAbs(b_ref[static_cast<std::size_t>(j)], 1e-12));
    CHECK_THAT(moelab::noisy::dense_excess_risk(m, dense.beta), WithinRel(ref.at(key + "dense_excess").at(0), 1e-11));
    moelab::noisy::SparseEstimator sparse;
    int row = 0;
    for (int i = 0; i < m.k(); ++i) {
      const int ni = static_cast<int>(counts[static_cast<std::size_t>(i)]);
      if (ni == 0) {
        sparse.push_back(Eigen::VectorXd::Zero(m.block_size(i)));
        continue;
      }
      sparse.push_back(moelab::min_norm_solve(X.block(row, m.offset(i), ni, m.block_size(i)), y.segment(row, ni)).beta);
      row += ni;
    }
    CHECK_THAT(moelab::noisy::sparse_excess_risk(m, sparse), WithinRel(ref.at(key + "sparse_excess").at(0), 1e-11));
    // Control: the dense estimator of the neighbouring case must not reproduce this case's excess.
    if (c > 0) {
      const auto& other = ref.at("case_" + std::to_string(c - 1) + "_dense_beta");
      const Eigen::VectorXd b_other = Eigen::Map<const Eigen::VectorXd>(other.data(), d);
      const double e_other = moelab::noisy::dense_excess_risk(m, b_other);
      CHECK(std::abs(e_other - ref.at(key + "dense_excess").at(0)) > 1e-3);
    }
  }
  CHECK(cases == 5);
}
