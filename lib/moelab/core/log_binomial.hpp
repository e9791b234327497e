// log C(n, k), the one implementation every topic uses (union bounds, routing counts, covering numbers,
// binomial pmfs), and log C(n, k) for n beyond double range given log n.
#pragma once

namespace moelab {

/// log C(n, k) = log Gamma(n + 1) - log Gamma(k + 1) - log Gamma(n - k + 1) for finite n >= 0 and real k,
/// with C(n, k) = 0 (log = -inf) for k < 0 or k > n. With j = min(k, n - k), m = n - j:
///  - j an integer <= 64: the sum of log((m + i) / i), i = 1..j (each term rounded once; a few ulps);
///  - j > 64: Stirling's series for the three factorials with the n log n parts cancelled analytically,
///    (m + 1/2) log1p(j / m) + j log(n / j) - log(2 pi j) / 2 + remainders, relative error a few eps for
///    every n < 2^53 (real n and k too);
///  - j <= 64 not an integer: the same Stirling form for n! / m! with lgamma(j + 1), a few eps relative;
///    for m <= 64 the lgamma difference (absolute error a few eps lgamma(129), i.e. ~4e-14).
/// A plain lgamma difference would lose eps n log n absolute (7.4 at n = 1e15). Never overflows.
/// Tested against exact integers and mpmath (tests/core/log_binomial_test.cpp).
double log_binomial(double n, double k);

/// log C(m, k) with m = exp(log_m) possibly beyond double range and an integer k >= 0 (k <= m):
/// log_binomial(m, k) while m < 4e15; beyond, k log m - k (k - 1) / (2 m) - lgamma(k + 1) (the next
/// term of sum_{i<k} log(1 - i/m) is O(k^3 / m^2), below rounding for every k < m^(1/2)).
double log_binomial_large(double log_m, double k);

}  // namespace moelab
