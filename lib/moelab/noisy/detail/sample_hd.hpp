// Per-element arithmetic of the noisy Fig. 3 sweep (noisy, Sec. 3.2 Eq. 1 design; Sec. 4.5 / A.6
// excess risk), header-only and MOELAB_HD: the device kernels (kernels/noisy_excess.cu) run these
// functions, and tests/noisy/excess_device_test.cpp runs the SAME functions on the CPU in the same
// layout, against the CPU reference (simulate.cpp: draw_training_set, excess_trial).
//
// Device layout of one trial (column-major, like cuBLAS):
//   X  n x d, element (r, c) at X[c * n + r]: the noisy design xbar (draw_training_set's t.xbar);
//   G  n x dmax, element (r, a) at G[a * n + r]: the standard-normal signal draws g of row r
//      (a < d_e for the row's expert e; the rest of the row is unused);
//   y  n: the response.
// Trials follow each other with strides n d (X), n dmax (G) and n (y). Rows are grouped by expert
// (expert 0's rows first), as in draw_training_set.
//
// Random addresses (the CPU's, simulate.cpp: draw_training_set):
//   noise  of (r, c): normal r d + c of RandomStream(seed, design_noise, trial), times sqrt(sigma2);
//   signal of (r, a): normal r d + offset(e) + a of RandomStream(seed, design_signal, trial).
// Normal j is z0 (j even) or z1 (j odd) of the Box-Muller pair of Philox block j >> 1
// (core/distributions.hpp). The CPU draws them with fill_normal_cpu (vectorised polynomial log /
// sin / cos, within 4 ulp of the radius of libm's), these functions with libm (host) or CUDA's
// double-precision log / sin / cos (device, at most 1-2 ulp each, CUDA Programming Guide, "Mathematical
// functions"): the uniforms are bit-identical, the normals agree to a few ulp, not to the bit.
// The Philox block counter is 32-bit: n d must stay below 2^33 (checked by the launcher).
#pragma once

#include <cstdint>

#include "moelab/core/distributions.hpp"

namespace moelab::noisy::hd {

/// Normals j0 and (when `two`) j0 + 1 of `s`: one Philox block when j0 is even (the pair shares a
/// block), two otherwise. Equal to s.normal(j0), s.normal(j0 + 1).
MOELAB_HD void normal_pair_at(const RandomStream& s, std::uint64_t j0, bool two, double& z0, double& z1) {
  if ((j0 & 1u) == 0u && two) {
    box_muller(philox_block(s.address(), static_cast<std::uint32_t>(j0 >> 1)), z0, z1);
  } else {
    z0 = s.normal(j0);
    z1 = two ? s.normal(j0 + 1) : 0.0;
  }
}

/// Columns per thread of the noise step: one thread writes columns 2b and 2b + 1 of row r
/// (consecutive threads take consecutive rows: coalesced column-major writes).
MOELAB_HD int column_pairs(int cols) { return (cols + 1) / 2; }

/// Noise of row r, columns 2b and 2b + 1 (< d): X[c n + r] = scale * normal(r d + c).
MOELAB_HD void noise_step(const RandomStream& noise, int n, int d, double scale, int r, int b, double* X) {
  const int c = 2 * b;
  const bool two = c + 1 < d;
  double z0, z1;
  normal_pair_at(noise, static_cast<std::uint64_t>(r) * static_cast<std::uint64_t>(d) + static_cast<std::uint64_t>(c), two, z0, z1);
  X[static_cast<std::uint64_t>(c) * static_cast<std::uint64_t>(n) + static_cast<std::uint64_t>(r)] = scale * z0;
  if (two) X[static_cast<std::uint64_t>(c + 1) * static_cast<std::uint64_t>(n) + static_cast<std::uint64_t>(r)] = scale * z1;
}

/// Signal draws of row r (expert e = row_expert[r]), block coordinates 2b and 2b + 1 (< d_e):
/// G[a n + r] = normal(r d + offset[e] + a). Threads with 2b >= d_e do nothing.
MOELAB_HD void signal_draw_step(const RandomStream& signal, int n, int d, const int* row_expert, const int* offset,
                                const int* size, int r, int b, double* G) {
  const int e = row_expert[r];
  const int a = 2 * b;
  if (a >= size[e]) return;
  const bool two = a + 1 < size[e];
  double z0, z1;
  normal_pair_at(signal, static_cast<std::uint64_t>(r) * static_cast<std::uint64_t>(d) + static_cast<std::uint64_t>(offset[e] + a), two,
                 z0, z1);
  G[static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(n) + static_cast<std::uint64_t>(r)] = z0;
  if (two) G[static_cast<std::uint64_t>(a + 1) * static_cast<std::uint64_t>(n) + static_cast<std::uint64_t>(r)] = z1;
}

/// Signal of row r, block coordinate a (< d_e): x_a = sum_{b <= a} L_e(a, b) g_b (x = L_e g,
/// x ~ N(0, Sigma_e), Sigma_e = L_e L_e'; noisy Eq. 1), added to X[(offset[e] + a) n + r].
/// L_e is column-major d_e x d_e at chol + chol_offset[e]. Sums b = 0 .. a in order.
MOELAB_HD void signal_add_step(int n, const int* row_expert, const int* offset, const int* size, const double* chol,
                               const std::uint64_t* chol_offset, const double* G, int r, int a, double* X) {
  const int e = row_expert[r];
  const int de = size[e];
  if (a >= de) return;
  const double* L = chol + chol_offset[e];
  double x = 0.0;
  for (int b = 0; b <= a; ++b)
    x += L[static_cast<std::uint64_t>(b) * static_cast<std::uint64_t>(de) + static_cast<std::uint64_t>(a)] *
         G[static_cast<std::uint64_t>(b) * static_cast<std::uint64_t>(n) + static_cast<std::uint64_t>(r)];
  X[static_cast<std::uint64_t>(offset[e] + a) * static_cast<std::uint64_t>(n) + static_cast<std::uint64_t>(r)] += x;
}

/// Response of row r: y = x' beta_e* = g' (L_e' beta_e*) = sum_b g_b w[offset[e] + b], where
/// w (length d) holds w_e = L_e' beta_e* in block e (noisy Eq. 1: y = x_i' beta_i*, noise-free).
MOELAB_HD double response_step(int n, const int* row_expert, const int* offset, const int* size, const double* w, const double* G,
                               int r) {
  const int e = row_expert[r];
  double y = 0.0;
  for (int b = 0; b < size[e]; ++b)
    y += G[static_cast<std::uint64_t>(b) * static_cast<std::uint64_t>(n) + static_cast<std::uint64_t>(r)] * w[offset[e] + b];
  return y;
}

/// The CPU's rule for leaving the Cholesky path (linalg/min_norm.cpp, rcond_from_cholesky): the
/// factorisation failed (info != 0), or (min L_ii / max L_ii)^2 <= rcond_fallback.
MOELAB_HD bool cholesky_usable(int info, double diag_min, double diag_max, double rcond_fallback) {
  if (info != 0) return false;
  if (!(diag_max > 0.0) || !(diag_min > 0.0)) return false;
  const double r = diag_min / diag_max;
  return r * r > rcond_fallback;
}

/// Smallest and largest diagonal entry of the m x m column-major factor L (leading dimension m).
MOELAB_HD void diagonal_range(const double* L, int m, double& lo, double& hi) {
  lo = m > 0 ? L[0] : 0.0;
  hi = lo;
  for (int a = 1; a < m; ++a) {
    const double v = L[static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(m) + static_cast<std::uint64_t>(a)];
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
  }
}

/// One block's terms of the exact excess-risk quadratic forms (risk.cpp: dense_excess_risk,
/// sparse_excess_risk; noisy Eq. 4 is quadratic, so R(b) - R(b_Bayes) = delta' H delta):
/// delta = b - b_bayes on block e (length de), quad = delta' Sigma_e delta, norm2 = |delta|^2.
/// Sigma_e is column-major de x de. Sums in index order.
MOELAB_HD void block_excess_terms(const double* sigma, int de, const double* b, const double* b_bayes, double& quad,
                                  double& norm2) {
  quad = 0.0;
  norm2 = 0.0;
  for (int a = 0; a < de; ++a) {
    const double da = b[a] - b_bayes[a];
    double s = 0.0;
    for (int c = 0; c < de; ++c)
      s += sigma[static_cast<std::uint64_t>(c) * static_cast<std::uint64_t>(de) + static_cast<std::uint64_t>(a)] * (b[c] - b_bayes[c]);
    quad += da * s;
    norm2 += da * da;
  }
}

/// The excess risks of one trial from its per-block terms (4 per block: dense quad, dense norm2,
/// sparse quad, sparse norm2), in block order:
///   dense  = sigma2 |delta|^2 + sum_e p_e delta_e' Sigma_e delta_e        (H = blockdiag(p_e S_e) + sigma2 I)
///   sparse = sum_e p_e (delta_e' Sigma_e delta_e + sigma2 |delta_e|^2)     (H_e = p_e (S_e + sigma2 I))
MOELAB_HD void combine_excess(int k, const double* p, double sigma2, const double* terms, double& dense, double& sparse) {
  double norm2 = 0.0, quad = 0.0;
  sparse = 0.0;
  for (int e = 0; e < k; ++e) {
    quad += p[e] * terms[4 * e + 0];
    norm2 += terms[4 * e + 1];
    sparse += p[e] * (terms[4 * e + 2] + sigma2 * terms[4 * e + 3]);
  }
  dense = sigma2 * norm2 + quad;
}

}  // namespace moelab::noisy::hd
