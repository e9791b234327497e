// Marchenko-Pastur law: closed forms against mpmath tables (tests/data/spectra/gen_marchenko_pastur_reference.py),
// properties (monotone CDF, total mass, Narayana moments = quadrature), the c <-> 1/c duality and the
// Gram-matrix conversions (closed form and one simulated matrix each).
#include "moelab/spectra/marchenko_pastur.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <boost/math/quadrature/tanh_sinh.hpp>

#include <catch2/catch.hpp>

#include "moelab/core/csv.hpp"
#include "moelab/core/distributions.hpp"
#include "moelab/linalg/decompositions.hpp"

using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
namespace sp = moelab::spectra;

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();

// Rows of a reference CSV as name -> value maps (metadata lines skipped by parse_csv).
std::vector<std::map<std::string, double>> load_reference(const std::string& name) {
  const std::string path = std::string(MOELAB_SOURCE_DIR) + "/tests/data/spectra/" + name;
  std::ifstream in(path);
  REQUIRE(in.good());
  std::stringstream buffer;
  buffer << in.rdbuf();
  const moelab::CsvTable table = moelab::parse_csv(buffer.str());
  std::vector<std::map<std::string, double>> rows;
  for (const auto& row : table.rows) {
    std::map<std::string, double> values;
    for (std::size_t j = 0; j < table.columns.size(); ++j) values[table.columns[j]] = std::stod(std::get<std::string>(row[j]));
    rows.push_back(values);
  }
  REQUIRE(!rows.empty());
  return rows;
}

// Relative condition number bound of density / cdf / survival at x near the edges: each behaves like
// (x - a)^(k/2) or (b - x)^(k/2), k <= 3, so a relative perturbation eps of x (the rounding of
// x / sigma2 alone) moves it by up to 1.5 x / dist(x, edge) relative.
// The edges are formed in long double (x87: 64-bit significand) so that, at ratios far from 1 (c = 1e-20: support
// 4e-10 wide around 1), the rounding of a double edge does not decide which side of it x lies on; within one ulp
// of x of an edge the distance is floored at that ulp (the edge itself is only known to it).
double edge_condition(const sp::MarchenkoPastur& mp, double x) {
  const long double root_c = std::sqrt(static_cast<long double>(mp.c()));
  const long double s2 = mp.sigma2();
  const long double a = s2 * (1.0L - root_c) * (1.0L - root_c), b = s2 * (1.0L + root_c) * (1.0L + root_c);
  const long double floor = kEps * std::abs(x);
  if (x <= a - floor || x >= b + floor) return 1.0;
  long double k = x / std::max(std::abs(b - x), floor);
  if (a > 0.0L) k = std::max(k, x / std::max(std::abs(x - a), floor));
  return 1.0 + 1.5 * static_cast<double>(k);
}

struct ErrorSummary {
  double max_abs = 0.0, max_rel = 0.0, max_scaled = 0.0;  // scaled: relative error / (eps * condition)
  std::string worst;
  void add(double got, double want, double condition, const std::string& where) {
    const double abs_err = std::abs(got - want);
    const double rel_err = want != 0.0 ? abs_err / std::abs(want) : (got == 0.0 ? 0.0 : abs_err);
    max_abs = std::max(max_abs, abs_err);
    max_rel = std::max(max_rel, rel_err);
    if (rel_err / (kEps * condition) > max_scaled) {
      max_scaled = rel_err / (kEps * condition);
      worst = where;
    }
  }
};

std::string describe(double c, double sigma2, double x) {
  std::ostringstream s;
  s.precision(17);
  s << "c = " << c << ", sigma2 = " << sigma2 << ", x = " << x;
  return s.str();
}

}  // namespace

TEST_CASE("edges, atom and preconditions take their closed-form values", "[spectra][marchenko_pastur]") {
  const sp::MarchenkoPastur mp(0.25, 2.0);
  CHECK(mp.lower_edge() == 0.5);  // 2 (1 - 0.5)^2, exact in binary
  CHECK(mp.upper_edge() == 4.5);  // 2 (1 + 0.5)^2
  CHECK(mp.atom() == 0.0);
  CHECK(sp::MarchenkoPastur(4.0).atom() == 0.75);
  CHECK(sp::MarchenkoPastur(4.0).lower_edge() == 1.0);
  CHECK(sp::MarchenkoPastur(1.0).lower_edge() == 0.0);
  CHECK_THROWS_AS(sp::MarchenkoPastur(0.0), std::logic_error);
  CHECK_THROWS_AS(sp::MarchenkoPastur(1.0, -1.0), std::logic_error);
  CHECK_THROWS_AS(sp::MarchenkoPastur(std::numeric_limits<double>::infinity()), std::logic_error);
  CHECK_THROWS_AS(mp.quantile(1.5), std::logic_error);
  CHECK_THROWS_AS(mp.moment(-1), std::logic_error);
  CHECK_THROWS_AS(sp::MarchenkoPastur(2.0).stieltjes(0.0), std::logic_error);
}

TEST_CASE("density, cdf and survival match the mpmath reference table", "[spectra][marchenko_pastur][reference]") {
  ErrorSummary density_err, cdf_err, survival_err;
  for (const auto& row : load_reference("marchenko_pastur_reference.csv")) {
    const sp::MarchenkoPastur mp(row.at("c"), row.at("sigma2"));
    const double x = row.at("x");
    const double condition = edge_condition(mp, x);
    const std::string where = describe(mp.c(), mp.sigma2(), x);
    density_err.add(mp.density(x), row.at("density"), condition, where);
    cdf_err.add(mp.cdf(x), row.at("cdf"), condition, where);
    survival_err.add(mp.survival(x), row.at("survival"), condition, where);
  }
  INFO("density : max abs " << density_err.max_abs << ", max rel " << density_err.max_rel << ", max rel/(eps cond) "
                            << density_err.max_scaled << " at " << density_err.worst);
  INFO("cdf     : max abs " << cdf_err.max_abs << ", max rel " << cdf_err.max_rel << ", max rel/(eps cond) "
                            << cdf_err.max_scaled << " at " << cdf_err.worst);
  INFO("survival: max abs " << survival_err.max_abs << ", max rel " << survival_err.max_rel << ", max rel/(eps cond) "
                            << survival_err.max_scaled << " at " << survival_err.worst);
  std::printf("marchenko_pastur vs mpmath: cdf max abs %.2e max rel/(eps cond) %.2f; survival max abs %.2e max "
              "rel/(eps cond) %.2f; density max rel/(eps cond) %.2f (worst cdf row: %s)\n",
              cdf_err.max_abs, cdf_err.max_scaled, survival_err.max_abs, survival_err.max_scaled, density_err.max_scaled,
              cdf_err.worst.c_str());
  // The only error sources are the rounding of t = x / sigma2 (amplified by the edge condition number)
  // and a handful of roundings in a 3-term closed form or a 20-point Gauss sum: observed <= 1.7 eps per
  // unit condition (gcc 12, glibc libm); 16 leaves room for other libms.
  CHECK(density_err.max_scaled < 16.0);
  CHECK(cdf_err.max_scaled < 16.0);
  CHECK(survival_err.max_scaled < 16.0);
  // Absolute error of the probabilities: a few ulp of 1.
  CHECK(cdf_err.max_abs < 8 * kEps);
  CHECK(survival_err.max_abs < 8 * kEps);
}

TEST_CASE("quantiles match the mpmath reference table", "[spectra][marchenko_pastur][reference]") {
  ErrorSummary err;
  for (const auto& row : load_reference("marchenko_pastur_quantiles.csv")) {
    const sp::MarchenkoPastur mp(row.at("c"), row.at("sigma2"));
    const double p = row.at("p"), x = row.at("x");
    // Conditioning: the rounding of F(x) (or of S(x) above the median) to eps min(p, 1 - p) absolute
    // moves the root by that over f(x); relative to x: eps min(p, 1 - p) / (x f(x)). It is large just
    // above the atom (p = atom + 1e-6: the continuous part is resolved to eps / 1e-6).
    const double condition = 1.0 + std::min(p, 1.0 - p) / (x * mp.density(x));
    err.add(mp.quantile(p), x, condition, describe(mp.c(), mp.sigma2(), p) + " (p)");
  }
  std::printf("marchenko_pastur quantiles vs mpmath: max rel %.2e, max rel/(eps cond) %.2f at %s\n", err.max_rel,
              err.max_scaled, err.worst.c_str());
  INFO("quantile: max abs " << err.max_abs << ", max rel " << err.max_rel << ", max rel/(eps cond) " << err.max_scaled
                            << " at " << err.worst);
  // TOMS 748 brackets the root to 2 ulp of x, plus the conditioned CDF rounding: observed 3.2 eps per
  // unit condition; 16 leaves room for other libms.
  CHECK(err.max_scaled < 16.0);
}

TEST_CASE("moments and Stieltjes transforms match the mpmath quadratures", "[spectra][marchenko_pastur][reference]") {
  ErrorSummary moment_err, stieltjes_err;
  for (const auto& row : load_reference("marchenko_pastur_moments.csv")) {
    const sp::MarchenkoPastur mp(row.at("c"), row.at("sigma2"));
    moment_err.add(mp.moment(static_cast<int>(row.at("k"))), row.at("moment"), 1.0, describe(mp.c(), mp.sigma2(), row.at("k")));
  }
  for (const auto& row : load_reference("marchenko_pastur_stieltjes.csv")) {
    const sp::MarchenkoPastur mp(row.at("c"), row.at("sigma2"));
    const std::complex<double> z(row.at("z_re"), row.at("z_im")), want(row.at("m_re"), row.at("m_im"));
    const double rel = std::abs(mp.stieltjes(z) - want) / std::abs(want);
    stieltjes_err.add(rel, 0.0, 1.0, describe(mp.c(), mp.sigma2(), z.real()));
    stieltjes_err.max_rel = std::max(stieltjes_err.max_rel, rel);
  }
  INFO("moment: max rel " << moment_err.max_rel << " at " << moment_err.worst);
  INFO("stieltjes: max |m - m_ref| / |m_ref| " << stieltjes_err.max_rel);
  // Narayana sums of k <= 8 positive terms with exact term ratios, times sigma2^k: ~k ulp.
  CHECK(moment_err.max_rel < 16 * kEps);
  // A square root and one division of well-separated quantities (the cancellation-free form is used).
  CHECK(stieltjes_err.max_rel < 16 * kEps);
}

TEST_CASE("the cdf is monotone in [0, 1], sums with the survival to 1 and inverts the quantile", "[spectra][marchenko_pastur]") {
  // Ratios far from 1 included (at c = 1e-14 the cdf fell at ~500 of these 2000 steps).
  const double c = GENERATE(1e-20, 1e-14, 1e-8, 1e-3, 0.1, 0.5, 0.99, 1.0, 1.01, 2.0, 10.0, 1e4, 1e14);
  const double sigma2 = GENERATE(0.3, 1.0, 4.0);
  const sp::MarchenkoPastur mp(c, sigma2);
  const double a = mp.lower_edge(), b = mp.upper_edge();
  double previous = mp.cdf(-1.0);
  CHECK(previous == 0.0);
  CHECK(mp.cdf(0.0) == mp.atom());
  for (int i = 0; i <= 2000; ++i) {
    const double x = a + (b - a) * i / 2000.0;
    const double F = mp.cdf(x);
    CHECK(F >= previous);
    CHECK(F >= 0.0);
    CHECK(F <= 1.0);
    // One ulp of 1 each for cdf and survival, plus the two closed forms' roundings.
    CHECK_THAT(F + mp.survival(x), WithinAbs(1.0, 4 * kEps));
    previous = F;
  }
  CHECK(mp.cdf(b) == 1.0);
  for (double p = 0.001; p < 1.0; p += 0.0495) {
    if (p <= mp.atom()) {
      CHECK(mp.quantile(p) == 0.0);
      continue;
    }
    // cdf(quantile(p)) = p: the root is bracketed to 2 ulp in x, so dF = f dx <= 2 eps x f(x) (x f(x) <= ~1 near
    // c = 1, but ~1 / (pi sqrt c) far from it: the support is 4 sqrt(c) sigma2 wide), plus the cdf's own few ulp.
    const double x = mp.quantile(p);
    CHECK_THAT(mp.cdf(x), WithinAbs(p, 8 * kEps * (1.0 + x * mp.density(x))));
  }
  CHECK(mp.quantile(1.0) == b);
  CHECK(mp.quantile(0.0) == (c > 1.0 ? 0.0 : a));
}

TEST_CASE("the density integrates to 1 - atom and its derivative-free CDF agrees with quadrature", "[spectra][marchenko_pastur]") {
  const double c = GENERATE(0.1, 0.5, 1.0, 2.0, 10.0);
  const double sigma2 = GENERATE(0.5, 3.0);
  const sp::MarchenkoPastur mp(c, sigma2);
  const double a = mp.lower_edge(), b = mp.upper_edge();
  boost::math::quadrature::tanh_sinh<double> integrator;
  const auto f = [&](double x) { return mp.density(x); };
  // tanh-sinh handles the square-root (and for c = 1 the x^-1/2) endpoint singularities; it reaches
  // ~1e-15 here, 1e-13 leaves room.
  const double total = integrator.integrate(f, a, b);
  CHECK_THAT(total, WithinAbs(1.0 - mp.atom(), 1e-13));
  for (const double u : {0.01, 0.3, 0.5, 0.8, 0.999}) {
    const double x = a + u * (b - a);
    CHECK_THAT(mp.cdf(x), WithinAbs(mp.atom() + integrator.integrate(f, a, x), 1e-13));
  }
}

TEST_CASE("moments equal the Narayana polynomials and the numerical integral of the density", "[spectra][marchenko_pastur]") {
  const double c = GENERATE(0.1, 0.5, 1.0, 2.0, 10.0);
  const double sigma2 = GENERATE(0.5, 3.0);
  const sp::MarchenkoPastur mp(c, sigma2);
  // Low orders by hand: E x = sigma2, E x^2 = sigma2^2 (1 + c), E x^3 = sigma2^3 (1 + 3c + c^2),
  // E x^4 = sigma2^4 (1 + 6c + 6c^2 + c^3).
  CHECK(mp.moment(0) == 1.0);
  CHECK_THAT(mp.moment(1), WithinRel(sigma2, 1e-15));
  CHECK_THAT(mp.moment(2), WithinRel(sigma2 * sigma2 * (1 + c), 1e-15));
  CHECK_THAT(mp.moment(3), WithinRel(std::pow(sigma2, 3) * (1 + 3 * c + c * c), 1e-15));
  CHECK_THAT(mp.moment(4), WithinRel(std::pow(sigma2, 4) * (1 + 6 * c + 6 * c * c + c * c * c), 1e-15));
  boost::math::quadrature::tanh_sinh<double> integrator;
  for (int k = 1; k <= 10; ++k) {
    const double integral =
        integrator.integrate([&](double x) { return std::pow(x, k) * mp.density(x); }, mp.lower_edge(), mp.upper_edge());
    // tanh-sinh of a smooth-times-sqrt integrand: ~1e-15 relative; 1e-12 for the growth of x^k.
    CHECK_THAT(mp.moment(k), WithinRel(integral, 1e-12));
  }
}

TEST_CASE("the Stieltjes transform is the Stieltjes branch and its boundary value gives the density", "[spectra][marchenko_pastur]") {
  const double c = GENERATE(0.1, 0.5, 1.0, 2.0, 10.0);
  const double sigma2 = GENERATE(0.5, 3.0);
  const sp::MarchenkoPastur mp(c, sigma2);
  const double a = mp.lower_edge(), b = mp.upper_edge();
  for (const std::complex<double> z : {std::complex<double>(a + 0.3 * (b - a), 1e-3), std::complex<double>(-2.0, 0.5),
                                       std::complex<double>(10 * b, 3.0), std::complex<double>(0.5 * (a + b), 1e-9)}) {
    const std::complex<double> m = mp.stieltjes(z);
    CHECK(m.imag() > 0.0);
    CHECK((z * m).imag() >= 0.0);  // support in [0, inf): Im(z m) >= 0 for Im z > 0
    // The quadratic c s z m^2 + (z - s(1 - c)) m + 1 = 0 (sigma2 = s units): terms O(1), residual ~ eps.
    const std::complex<double> residual = c * sigma2 * z * m * m + (z - sigma2 * (1 - c)) * m + 1.0;
    CHECK(std::abs(residual) < 1e-12 * (1.0 + std::abs(z * m)));
    CHECK(mp.stieltjes(std::conj(z)) == std::conj(m));
  }
  // m(z) ~ -1/z at infinity (mass 1, atom included).
  const std::complex<double> far(1e8, 1e8);
  CHECK(std::abs(mp.stieltjes(far) * far + 1.0) < 1e-6);
  for (const double u : {0.01, 0.2, 0.5, 0.7, 0.99}) {
    const double x = a + u * (b - a);
    // Boundary value with Im z = +0: Im m(x + i0) = pi f(x) up to a few ulp.
    CHECK_THAT(mp.stieltjes({x, 0.0}).imag() / M_PI, WithinRel(mp.density(x), 1e-13));
  }
  // Real z outside the support: real m, E[1/(lambda - z)] with the atom -atom/z.
  CHECK(mp.stieltjes(b + 1.0).imag() == 0.0);
  CHECK(mp.stieltjes(b + 1.0).real() < 0.0);
}

TEST_CASE("the companion law is (1 - c) delta_0 + c MP(c, sigma2) = MP(1/c, c sigma2)", "[spectra][marchenko_pastur][duality]") {
  const double c = GENERATE(0.1, 0.5, 1.0, 2.0, 10.0);
  const double sigma2 = GENERATE(0.5, 3.0);
  const sp::MarchenkoPastur mp(c, sigma2);
  const sp::MarchenkoPastur comp = mp.companion();
  CHECK_THAT(comp.c(), WithinRel(1.0 / c, 1e-15));
  CHECK_THAT(comp.sigma2(), WithinRel(c * sigma2, 1e-15));
  // Same nonzero spectrum: same edges.
  CHECK_THAT(comp.lower_edge(), WithinAbs(mp.lower_edge(), 1e-14 * mp.upper_edge()));
  CHECK_THAT(comp.upper_edge(), WithinRel(mp.upper_edge(), 1e-14));
  // Atom of the companion: max(0, 1 - c) = (1 - c) + c atom(mp).
  CHECK_THAT(comp.atom(), WithinAbs((1.0 - c) + c * mp.atom(), 1e-15));
  const double a = mp.lower_edge(), b = mp.upper_edge();
  for (const double u : {0.001, 0.1, 0.5, 0.9, 0.999}) {
    const double x = a + u * (b - a);
    // Continuous parts: f_comp = c f (a few ulp; edge-conditioned near u = 0.001, 0.999).
    CHECK_THAT(comp.density(x), WithinRel(c * mp.density(x), 1e-12));
    CHECK_THAT(comp.cdf(x), WithinAbs((1.0 - c) + c * mp.cdf(x), 1e-14 * std::max(1.0, c)));
  }
  for (const std::complex<double> z : {std::complex<double>(0.5 * (a + b), 0.2), std::complex<double>(-1.0, 0.0)}) {
    // m_comp(z) = c m(z) - (1 - c)/z.
    const std::complex<double> want = c * mp.stieltjes(z) - (1.0 - c) / z;
    CHECK(std::abs(comp.stieltjes(z) - want) < 1e-13 * std::abs(want) * std::max(1.0, c));
  }
  for (int k = 1; k <= 6; ++k) CHECK_THAT(comp.moment(k), WithinRel(c * mp.moment(k), 1e-14));
  // The duality is an involution.
  CHECK_THAT(comp.companion().c(), WithinRel(c, 1e-15));
  CHECK_THAT(comp.companion().sigma2(), WithinRel(sigma2, 1e-15));
}

TEST_CASE("scaling and the four Gram normalisations are the stated members of the family", "[spectra][marchenko_pastur][duality]") {
  const double M = 300.0, N = 120.0, sigma2 = 1.7, c = M / N;
  const sp::MarchenkoPastur mp(c, sigma2), scaled = mp.scaled(2.5);
  for (const double x : {0.5, 2.0, 7.0, 12.0}) {
    CHECK_THAT(scaled.density(2.5 * x), WithinRel(mp.density(x) / 2.5, 1e-14));
    CHECK_THAT(scaled.cdf(2.5 * x), WithinAbs(mp.cdf(x), 1e-15));
  }
  using sp::GramNormalisation;
  using sp::GramSide;
  const auto rows_n = sp::marchenko_pastur_of_gram(M, N, sigma2, GramSide::rows, GramNormalisation::by_columns);
  const auto rows_m = sp::marchenko_pastur_of_gram(M, N, sigma2, GramSide::rows, GramNormalisation::by_rows);
  const auto cols_m = sp::marchenko_pastur_of_gram(M, N, sigma2, GramSide::columns, GramNormalisation::by_rows);
  const auto cols_n = sp::marchenko_pastur_of_gram(M, N, sigma2, GramSide::columns, GramNormalisation::by_columns);
  CHECK((rows_n.c() == c && rows_n.sigma2() == sigma2));
  CHECK_THAT(rows_m.sigma2(), WithinRel(sigma2 / c, 1e-15));  // X X'/M = (1/c) X X'/N
  CHECK_THAT(cols_m.c(), WithinRel(1.0 / c, 1e-15));
  CHECK(cols_m.sigma2() == sigma2);  // X' X / M is the convention with the roles of M and N swapped
  CHECK_THAT(cols_n.c(), WithinRel(mp.companion().c(), 1e-15));
  CHECK_THAT(cols_n.sigma2(), WithinRel(mp.companion().sigma2(), 1e-15));
  CHECK_THAT(rows_m.c(), WithinRel(c, 1e-15));
}

TEST_CASE("each Gram normalisation law matches the spectrum of one simulated matrix", "[spectra][marchenko_pastur][mc]") {
  // X is 300 x 120 (c = 2.5 > 1, so X X' has an atom 0.6 at zero) with iid N(0, 1.7). The empirical
  // CDF of the eigenvalues is compared with each law at 41 points. Eigenvalue counts are rigid:
  // |F_M - F| = O(log M / M) + O(1/M) edge bias (~0.02 at M = 120); tolerance 0.04. Each wrong
  // normalisation (the laws of the other three Gram forms) is rejected: their CDFs differ by > 0.1
  // (the closest pair, X X'/N against X X'/M, share the atom 0.6 and differ by 0.18).
  const int M = 300, N = 120;
  const double sigma2 = 1.7;
  const moelab::RandomStream stream(11, moelab::StreamTag::property_test, 0);
  Eigen::MatrixXd X(M, N);
  std::uint64_t j = 0;
  for (int col = 0; col < N; ++col)
    for (int row = 0; row < M; ++row) X(row, col) = std::sqrt(sigma2) * stream.normal(j++);
  const Eigen::VectorXd rows_eig = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(Eigen::MatrixXd(X * X.transpose()), Eigen::EigenvaluesOnly).eigenvalues();
  const Eigen::VectorXd cols_eig = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(Eigen::MatrixXd(X.transpose() * X), Eigen::EigenvaluesOnly).eigenvalues();
  using sp::GramNormalisation;
  using sp::GramSide;
  struct Case {
    GramSide side;
    GramNormalisation norm;
    const Eigen::VectorXd* eig;
    double divisor;
  };
  const std::vector<Case> cases = {{GramSide::rows, GramNormalisation::by_columns, &rows_eig, double(N)},
                                   {GramSide::rows, GramNormalisation::by_rows, &rows_eig, double(M)},
                                   {GramSide::columns, GramNormalisation::by_rows, &cols_eig, double(M)},
                                   {GramSide::columns, GramNormalisation::by_columns, &cols_eig, double(N)}};
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Eigen::VectorXd eig = *cases[i].eig / cases[i].divisor;
    const double top = eig.maxCoeff();
    const auto ks = [&](const sp::MarchenkoPastur& law) {
      double d = 0.0;
      for (int q = 0; q <= 40; ++q) {
        const double x = top * 1.2 * q / 40.0 + 1e-9 * top;  // just above 0: the atom is included on both sides
        const double empirical = static_cast<double>((eig.array() <= x).count()) / static_cast<double>(eig.size());
        d = std::max(d, std::abs(empirical - law.cdf(x)));
      }
      return d;
    };
    const double own = ks(sp::marchenko_pastur_of_gram(M, N, sigma2, cases[i].side, cases[i].norm));
    INFO("case " << i << ": sup |F_emp - F| = " << own);
    CHECK(own < 0.04);
    for (std::size_t other = 0; other < cases.size(); ++other) {
      if (other == i) continue;
      CHECK(ks(sp::marchenko_pastur_of_gram(M, N, sigma2, cases[other].side, cases[other].norm)) > 0.1);
    }
  }
}

TEST_CASE("KS distance of an ideal spectrum to MP is at most half a jump, atom included", "[spectra][marchenko_pastur]") {
  const double c = GENERATE(0.5, 2.0);
  const moelab::spectra::MarchenkoPastur mp(c, 1.3);
  constexpr int M = 400;
  const int zeros = c > 1.0 ? static_cast<int>(M - M / c) : 0;
  std::vector<double> ev(static_cast<std::size_t>(zeros), 0.0);
  // The remaining eigenvalues at the mid-quantiles of the law: the ECDF then straddles F by 1/(2M).
  for (int i = zeros; i < M; ++i) ev.push_back(mp.quantile((i + 0.5) / M));
  // Quantiles are accurate to ~1e-13 (accuracy table); the 1e-9 slack covers F's slope times that.
  CHECK(mp.ks_distance(ev) <= 0.5 / M + 1e-9);
  CHECK(mp.ks_distance(ev) >= 0.5 / M - 1e-9);
}

TEST_CASE("far from c = 1 the law is the semicircle limit, monotone on the CLI grid", "[spectra][marchenko_pastur]") {
  // `moelab spectrum mp --c 1e-20 --points 3`: the middle grid point a + (b - a)/2 rounds to x = 1 (the centre
  // 1 + c of the support is not a double); the cdf there was 0. Reference (gen_marchenko_pastur_reference.py,
  // row c = 1e-20, x = 1): 0.50000000001061029 = 1/2 + (4 / (3 pi)) sqrt(c) (the law's asymmetry, 4.24e-11) minus
  // f(1) c (x = 1 lies c below the centre, f = 3.18e9 there: 3.18e-11).
  const sp::MarchenkoPastur tiny(1e-20);
  const double middle = tiny.lower_edge() + (tiny.upper_edge() - tiny.lower_edge()) * 1 / 2.0;
  CHECK(middle == 1.0);
  CHECK_THAT(tiny.cdf(middle), WithinAbs(0.50000000001061029, 4 * kEps));
  CHECK_THAT(tiny.survival(middle), WithinAbs(0.49999999998938965, 4 * kEps));
  // As c -> 0, (x - 1) / (2 sqrt c) is semicircle distributed: F = 1/2 + (u sqrt(1 - u^2) + asin u) / pi + O(sqrt c).
  for (double u : {-0.9, -0.5, -0.1, 0.3, 0.8}) {
    const double x = 1.0 + 2.0 * std::sqrt(1e-20) * u;
    const double semicircle = 0.5 + (u * std::sqrt(1.0 - u * u) + std::asin(u)) / M_PI;
    // O(sqrt c) = 1e-10 correction; the grid point's own rounding moves u by up to 1.1e-16 / 2e-10 = 5.5e-7.
    CHECK_THAT(tiny.cdf(x), WithinAbs(semicircle, 1e-6));
  }
  // `moelab spectrum mp --c 1e-14 --points 2001`: non-decreasing at every step, each step's increment equal to the
  // density times the step to second order (the cdf fell by up to 6e-3 at ~500 steps before).
  const sp::MarchenkoPastur small(1e-14);
  const double a = small.lower_edge(), b = small.upper_edge();
  double previous = small.cdf(a), worst = 0.0;
  // The double lower edge lies within an ulp (1.1e-16, 2.8e-10 of the width) of the true one: F there is at most
  // ~(2.8e-10)^(3/2) ~ 5e-15 (F ~ distance^(3/2) at a square-root edge).
  CHECK(previous <= 1e-14);
  int decreases = 0;
  for (int i = 1; i <= 2000; ++i) {
    const double x = a + (b - a) * i / 2000.0, x_prev = a + (b - a) * (i - 1) / 2000.0;
    const double F = small.cdf(x);
    if (F < previous) ++decreases;
    // Trapezoid of the density over the step: error h^3 f''/12 relative to the step mass ~ (h / width)^2 / 12
    // away from the edges; the edge steps carry a sqrt singularity, so only steps 20..1980 are compared.
    if (i >= 20 && i <= 1980) {
      const double trapezoid = 0.5 * (x - x_prev) * (small.density(x) + small.density(x_prev));
      worst = std::max(worst, std::abs((F - previous) - trapezoid) / trapezoid);
    }
    previous = F;
  }
  INFO("max relative deviation of a cdf step from the density trapezoid: " << worst);
  CHECK(decreases == 0);
  CHECK(previous == 1.0);
  // Steps are 1/2000 of the width: trapezoid error (h^2 f'' / 12 f) is largest at step 20 (a sqrt edge 20 steps
  // away: ~ 1 / (48 * 20^2) = 5e-5); the grid points' rounding (1.1e-16 against steps of 2e-10) adds 1e-6.
  CHECK(worst < 2e-4);
}
