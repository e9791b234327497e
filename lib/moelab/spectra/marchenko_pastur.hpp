// The Marchenko-Pastur law (Marchenko & Pastur 1967; Bai & Silverstein 2010, "Spectral Analysis of
// Large Dimensional Random Matrices", Ch. 3) for any ratio c > 0 and scale sigma2.
//
// Convention (named; every function below uses it):
//   S = (1/N) X X', X is M x N with iid entries of mean 0 and variance sigma2, c = M / N (M, N -> inf).
//   The eigenvalue distribution of S (M eigenvalues) tends to MP(c, sigma2):
//     - edges a = sigma2 (1 - sqrt c)^2, b = sigma2 (1 + sqrt c)^2;
//     - absolutely continuous part f(x) = sqrt((b - x)(x - a)) / (2 pi c sigma2 x) on [a, b];
//     - for c > 1 an atom of mass 1 - 1/c at 0 (S has rank N < M); the continuous part then has mass 1/c.
// Other Gram matrices of the same X have laws of this family (see `marchenko_pastur_of_gram`):
//   X X' / N -> MP(c, sigma2),  X X' / M -> MP(c, sigma2 / c),
//   X' X / M -> MP(1/c, sigma2), X' X / N -> MP(1/c, c sigma2) = companion(MP(c, sigma2)).
#pragma once

#include <complex>
#include <span>

namespace moelab::spectra {

/// Which Gram matrix of an M x N matrix X: X X' (M x M) or X' X (N x N).
enum class GramSide { rows, columns };
/// Which dimension divides the Gram matrix: N (the number of columns of X) or M (the number of rows).
enum class GramNormalisation { by_columns, by_rows };

/// MP(c, sigma2) in the convention of the file comment. Methods are exact closed forms unless stated.
class MarchenkoPastur {
 public:
  /// Throws std::logic_error (MOELAB_EXPECT) unless c > 0 and sigma2 > 0 (both finite).
  MarchenkoPastur(double c, double sigma2 = 1.0);

  double c() const { return c_; }
  double sigma2() const { return sigma2_; }

  /// a = sigma2 (1 - sqrt c)^2. For c = 1 it is 0.
  double lower_edge() const;
  /// b = sigma2 (1 + sqrt c)^2.
  double upper_edge() const;
  /// Mass of the atom at 0: max(0, 1 - 1/c).
  double atom() const;
  /// Density of the absolutely continuous part, sqrt((b - x)(x - a)) / (2 pi c sigma2 x) on (a, b), else 0.
  /// (For c = 1 it diverges like x^(-1/2) at 0; density(0) returns +inf there.)
  double density(double x) const;
  /// P(lambda <= x), atom included (right-continuous: cdf(0) = atom() for c > 1). Closed form: with
  /// t = x / sigma2, r = sqrt((b - t)(t - a)) (edges for sigma2 = 1), the antiderivative of
  /// sqrt((b - t)(t - a)) / t is r + (1 + c) asin(u) - |1 - c| asin(v), u = (2t - a - b)/(b - a),
  /// v = ((a + b) t - 2ab)/(t (b - a)) (sqrt(ab) = |1 - c|, (a + b)/2 = 1 + c), written with
  /// asin(u) + pi/2 = 2 asin(sqrt((1 + u)/2)) so that no pi/2 cancels. Within 5% of the edge scale
  /// (min(a, b - a)) of the lower edge the cancellation of the O(sqrt(t - a)) terms is avoided by a
  /// 20-point Gauss-Legendre rule in s = sqrt(t - a), whose integrand is analytic there.
  /// Far from c = 1 (c <= 0.1 or c >= 10), where those terms cancel (O(1 + c) terms for an O(min(c, 1)) result:
  /// 1e-2 errors and a non-monotone cdf at c = 1e-14), the mass is a 30-point Gauss-Legendre integral
  /// of (2/pi) sin^2(phi) / (1 + c - 2 sqrt(c) cos(phi)) over the angle phi of the support (t = 1 + c - 2 sqrt(c)
  /// cos(phi); the semicircle law as c -> 0), with t - a and b - t formed without rounding the edges first.
  double cdf(double x) const;
  /// P(lambda > x) = 1 - cdf(x), computed without cancellation near the upper edge (same closed form
  /// around b: 1 - u = 2 (b - t)/(b - a), 1 - v = 2 a (b - t)/(t (b - a)); Gauss rule near b).
  double survival(double x) const;
  /// inf{x : cdf(x) >= p} for p in [0, 1]: 0 for p <= atom() (c > 1), a for p = 0 and c <= 1, b for
  /// p = 1; otherwise the root of cdf(x) = p (or survival(x) = 1 - p in the upper half) by TOMS 748.
  double quantile(double p) const;
  /// E[lambda^k] = sigma2^k sum_{r=0}^{k-1} c^r / (r + 1) C(k, r) C(k - 1, r) (Narayana polynomial;
  /// Bai & Silverstein 2010, Sec. 3.1.1), atom included; moment(0) = 1. Requires 0 <= k <= 200.
  double moment(int k) const;
  /// Stieltjes transform m(z) = E[1/(lambda - z)] (atom included), for z off the support. For sigma2 = 1,
  /// m solves c z m^2 + (z - 1 + c) m + 1 = 0 and m = (1 - c - z + sqrt((z - a)(z - b)))/(2 c z) with
  /// sqrt((z - a)(z - b)) := sqrt(z - a) sqrt(z - b) (principal roots; cut on [a, b], ~ z at infinity):
  /// the branch with Im m > 0 for Im z > 0 and m ~ -1/z. Evaluated as the form of the two without
  /// cancellation (the roots multiply to 1/(c z)). For real z in (a, b) passed with imaginary part +0.0
  /// it returns the boundary value m(x + i0), whose imaginary part is pi density(x). Requires z != 0
  /// when c > 1 (the atom) or c = 1 (the edge).
  std::complex<double> stieltjes(std::complex<double> z) const;

  /// Law of t S (t > 0): MP(c, t sigma2).
  /// Kolmogorov distance sup_x |F_M(x) - F(x)| between the empirical spectral distribution of the
  /// eigenvalues `ascending` and this law, exact with the atom at 0 (zero eigenvalues form one jump).
  double ks_distance(std::span<const double> ascending) const;
  MarchenkoPastur scaled(double t) const;
  /// c <-> 1/c duality: the law of the companion (1/N) X' X (N x N) is (1 - c) delta_0 + c MP(c, sigma2)
  /// (same nonzero eigenvalues, N of them instead of M) = MP(1/c, c sigma2).
  MarchenkoPastur companion() const;

 private:
  double c_, sigma2_;
};

/// Limit law of the eigenvalues of G / D where G = X X' (side rows) or X' X (side columns), X is
/// M x N with iid entries of variance sigma2, D = N (by_columns) or M (by_rows):
///   rows: MP(M/N, sigma2 N/D);  columns: MP(N/M, sigma2 M/D).
/// M and N are only used through their ratio (any positive reals).
MarchenkoPastur marchenko_pastur_of_gram(double M, double N, double sigma2, GramSide side, GramNormalisation norm);

}  // namespace moelab::spectra
