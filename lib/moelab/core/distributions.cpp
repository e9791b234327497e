// Bulk (vectorised) standard normals: the Box–Muller transform (Box & Muller 1958,
// z0 = sqrt(-2 log u1) cos(2 pi u2), z1 = sqrt(-2 log u1) sin(2 pi u2)) of the same Philox4x32-10
// blocks (Salmon et al. 2011) as RandomStream::normal, evaluated kBatch blocks at a time in
// structure-of-arrays form with no branches and no libm calls, so that the loops vectorise
// (AVX2: 4 lanes). log and sin/cos are polynomial evaluations written here (below); they differ from
// libm's by rounding only (a few ulp), see distributions.hpp.
#include "moelab/core/distributions.hpp"

// lib/CMakeLists.txt compiles this file with -fno-math-errno -fno-trapping-math: sqrt is only taken
// of a non-negative number here and no FP exception is ever inspected; with errno and trapping math
// GCC keeps a scalar sqrt call and refuses to if-convert the selects, and the loops stay scalar.

#include <bit>
#include <cmath>
#include <cstdint>

namespace moelab {

namespace {

constexpr int kBatch = 32;  // Philox blocks per batch (64 normals): 4x the scalar speed here, 8 blocks gave 2.6x

// ln 2 split so that e * kLn2Hi is exact for |e| < 2^11 (the leading 32 bits of ln 2, then the rest).
constexpr double kLn2Hi = 0x1.62e42feep-1;
constexpr double kLn2Lo = 0x1.a39ef35793c76p-33;
constexpr double kSqrtHalf = 0.70710678118654752440;
constexpr double kPiOver2 = 1.57079632679489661923;
constexpr double kTwo52 = 0x1.0p52;
constexpr std::uint64_t kTwo52Bits = 0x4330000000000000ull;  // bit pattern of 2^52

/// log(u) for u in [2^-53, 1) (normal doubles): u = 2^e m, m in [sqrt(1/2), sqrt(2)), f = m - 1
/// (exact), s = f / (2 + f); log(1 + f) = 2 atanh(s) = 2s + s R(s^2), R = sum_{k>=1} 2 s^(2k) / (2k + 1)
/// (Taylor series of atanh, |s| <= 0.1716, 12 terms: truncation below 1e-19 relative), and
/// 2s = f - hfsq + s hfsq with hfsq = f^2 / 2, written as f - (hfsq - s (hfsq + R)) to keep the
/// leading term exact. The exponent e is read from the bits as a double (no integer conversion).
inline double log_poly(double u) {
  const std::uint64_t ix = std::bit_cast<std::uint64_t>(u);
  double e = std::bit_cast<double>((ix >> 52) | kTwo52Bits) - kTwo52 - 1023.0;
  double m = std::bit_cast<double>((ix & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
  const bool high = m > 2.0 * kSqrtHalf;
  m = high ? 0.5 * m : m;
  e = high ? e + 1.0 : e;
  const double f = m - 1.0;
  const double hfsq = 0.5 * f * f;
  const double s = f / (2.0 + f);
  const double z = s * s;
  // R = 2 z / 3 + 2 z^2 / 5 + ... + 2 z^12 / 25 (Horner).
  double r = 2.0 / 25.0;
  r = r * z + 2.0 / 23.0;
  r = r * z + 2.0 / 21.0;
  r = r * z + 2.0 / 19.0;
  r = r * z + 2.0 / 17.0;
  r = r * z + 2.0 / 15.0;
  r = r * z + 2.0 / 13.0;
  r = r * z + 2.0 / 11.0;
  r = r * z + 2.0 / 9.0;
  r = r * z + 2.0 / 7.0;
  r = r * z + 2.0 / 5.0;
  r = r * z + 2.0 / 3.0;
  r *= z;
  return e * kLn2Hi - ((hfsq - (s * (hfsq + r) + e * kLn2Lo)) - f);
}

/// sin and cos of 2 pi u for u in (0, 1): x = 4u = q + t with q = round(x) (an integer 0..4) and
/// t in [-1/2, 1/2] (both exact), theta = t pi / 2 in [-pi/4, pi/4]; sin and cos of theta by their
/// Taylor series (through theta^17 and theta^18: truncation below 1e-19), then rotated by q quarter
/// turns: (sin, cos)(theta + q pi/2) = (s, c), (c, -s), (-s, -c), (-c, s) for q mod 4 = 0, 1, 2, 3.
inline void sincos_2pi(double u, double& sin_out, double& cos_out) {
  const double x = 4.0 * u;
  const double qf = std::floor(x + 0.5);
  const double t = x - qf;
  const double th = t * kPiOver2;
  const double z = th * th;
  // sin th = th + th^3 P(z), P = -1/3! + z/5! - ... + z^7/17!
  double p = 1.0 / 355687428096000.0;          // 1/17!
  p = p * z - 1.0 / 1307674368000.0;           // 1/15!
  p = p * z + 1.0 / 6227020800.0;              // 1/13!
  p = p * z - 1.0 / 39916800.0;                // 1/11!
  p = p * z + 1.0 / 362880.0;                  // 1/9!
  p = p * z - 1.0 / 5040.0;                    // 1/7!
  p = p * z + 1.0 / 120.0;                     // 1/5!
  p = p * z - 1.0 / 6.0;                       // 1/3!
  const double s = th + th * z * p;
  // cos th = 1 - (z/2 - z^2 Q(z)), Q = 1/4! - z/6! + ... - z^7/18!
  double q = -1.0 / 6402373705728000.0;        // 1/18!
  q = q * z + 1.0 / 20922789888000.0;          // 1/16!
  q = q * z - 1.0 / 87178291200.0;             // 1/14!
  q = q * z + 1.0 / 479001600.0;               // 1/12!
  q = q * z - 1.0 / 3628800.0;                 // 1/10!
  q = q * z + 1.0 / 40320.0;                   // 1/8!
  q = q * z - 1.0 / 720.0;                     // 1/6!
  q = q * z + 1.0 / 24.0;                      // 1/4!
  const double c = 1.0 - (0.5 * z - z * z * q);
  // Quadrant q mod 4 from the double (0..4): bit 0 swaps, bit 1 negates sin, bit 1 of q + 1 negates cos.
  // (Comparisons only, no && or ||: they would be branches and stop the vectoriser.)
  const double q4 = qf - 4.0 * std::floor(qf * 0.25);
  const bool swap = q4 - 2.0 * std::floor(q4 * 0.5) == 1.0;  // q odd
  const bool neg_sin = q4 >= 2.0;                              // q = 2, 3
  const bool neg_cos = std::fabs(q4 - 1.5) < 1.0;              // q = 1, 2
  const double so = swap ? c : s;
  const double co = swap ? s : c;
  sin_out = neg_sin ? -so : so;
  cos_out = neg_cos ? -co : co;
}

/// Uniform on (0, 1) from two 32-bit words (held in 64-bit lanes), bit-identical to uniform_open01:
/// the 52-bit integer is converted exactly through the 2^52 bit pattern.
inline double uniform_from_words(std::uint64_t a, std::uint64_t b) {
  const std::uint64_t bits = ((a >> 6) << 26) | (b >> 6);
  return (std::bit_cast<double>(bits | kTwo52Bits) - kTwo52 + 0.5) * 0x1.0p-52;
}

/// Normals 2 b and 2 b + 1 of the stream for the kBatch blocks b = first_block + i (block numbers
/// wrap at 2^32 like RandomStream's), written to z[2 i], z[2 i + 1].
void normal_batch(const DrawAddress& a, std::uint64_t first_block, double* z) {
  // Philox4x32-10 (philox.hpp), the 32-bit words held in 64-bit lanes; the products are written
  // as 32 x 32 -> 64-bit (operands cast to uint32) so they map to one vector multiply (vpmuludq)
  // instead of a shift-and-add expansion of a 64-bit product.
  std::uint64_t c0[kBatch], c1[kBatch], c2[kBatch], c3[kBatch];
  const std::uint64_t trial_lo = static_cast<std::uint32_t>(a.trial), trial_hi = static_cast<std::uint32_t>(a.trial >> 32);
  for (int i = 0; i < kBatch; ++i) {
    c0[i] = static_cast<std::uint32_t>(first_block + static_cast<std::uint64_t>(i));
    c1[i] = trial_lo;
    c2[i] = trial_hi;
    c3[i] = a.tag;
  }
  std::uint32_t k0 = static_cast<std::uint32_t>(a.seed), k1 = static_cast<std::uint32_t>(a.seed >> 32);
  constexpr std::uint64_t kMask = 0xffffffffull;
  // The multipliers as opaque values: with the constants visible, GCC expands the products into
  // shift-and-add sequences, several times slower than one vpmuludq.
  std::uint32_t m0 = detail::kPhiloxM0, m1 = detail::kPhiloxM1;
#if defined(__GNUC__)
  asm("" : "+r"(m0), "+r"(m1));
#endif
  for (int round = 0; round < 10; ++round) {
#pragma omp simd
    for (int i = 0; i < kBatch; ++i) {
      const std::uint64_t p0 = static_cast<std::uint64_t>(static_cast<std::uint32_t>(c0[i])) * m0;
      const std::uint64_t p1 = static_cast<std::uint64_t>(static_cast<std::uint32_t>(c2[i])) * m1;
      const std::uint64_t n0 = (p1 >> 32) ^ c1[i] ^ k0;
      const std::uint64_t n2 = (p0 >> 32) ^ c3[i] ^ k1;
      c1[i] = p1 & kMask;
      c3[i] = p0 & kMask;
      c0[i] = n0;
      c2[i] = n2;
    }
    k0 += detail::kPhiloxW0;
    k1 += detail::kPhiloxW1;
  }
#pragma omp simd
  for (int i = 0; i < kBatch; ++i) {
    const double u1 = uniform_from_words(c0[i], c1[i]);
    const double u2 = uniform_from_words(c2[i], c3[i]);
    const double radius = std::sqrt(-2.0 * log_poly(u1));
    double sn, cs;
    sincos_2pi(u2, sn, cs);
    z[2 * i] = radius * cs;
    z[2 * i + 1] = radius * sn;
  }
}

}  // namespace

void fill_normal_bulk(const RandomStream& stream, std::uint64_t first, std::uint64_t count, double* out) {
  if (count == 0) return;
  const DrawAddress& a = stream.address();
  const std::uint64_t last = first + count;  // one past the last normal
  std::uint64_t block = first >> 1;
  const std::uint64_t end_block = (last + 1) >> 1;
  double z[2 * kBatch];
  std::uint64_t k = 0;
  // Whole batches write straight into out when aligned to the window; the edges go through z.
  while (block < end_block) {
    normal_batch(a, block, z);
    const std::uint64_t j0 = 2 * block;  // normal index of z[0]
    const std::uint64_t lo = first > j0 ? first - j0 : 0;
    const std::uint64_t hi = last - j0 < 2 * kBatch ? last - j0 : 2 * kBatch;
    for (std::uint64_t i = lo; i < hi; ++i) out[k++] = z[i];
    block += kBatch;
  }
}

}  // namespace moelab
