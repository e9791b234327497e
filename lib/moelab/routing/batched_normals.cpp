#include "moelab/routing/batched_normals.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define MOELAB_ROUTING_AVX2 1
#endif

namespace moelab::routing {

namespace {

constexpr int kW = 64;  // blocks per vector sweep

inline double bits_to_double(std::uint64_t b) {
  double d;
  std::memcpy(&d, &b, sizeof d);
  return d;
}
inline std::uint64_t double_to_bits(double d) {
  std::uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}

/// uniform_open01 of philox.hpp: 52 random bits, centred in their cell. The 52-bit integer is
/// converted exactly by the 2^52 magic-number trick (AVX2 has no 64-bit integer-to-double convert).
inline double unit_open(std::uint32_t a, std::uint32_t b) {
  const std::uint64_t bits = (static_cast<std::uint64_t>(a >> 6) << 26) | static_cast<std::uint64_t>(b >> 6);
  const double exact = bits_to_double(0x4330000000000000ull | bits) - 4503599627370496.0;  // = bits
  return (exact + 0.5) * 0x1.0p-52;
}

// log(m) = 2 atanh(t), t = (m - 1)/(m + 1), m in [sqrt(1/2), sqrt 2): |t| <= 0.1716, t^2 <= 0.02944;
// 2 atanh(t) = 2 t sum_n t^(2n) / (2n + 1), n <= 11 (the next term is below 1e-18 relative).
inline double log_inline(double u) {
  const std::uint64_t b = double_to_bits(u);
  // Biased exponent to double exactly by the 2^52 trick (no 64-bit integer convert in AVX2).
  double e = (bits_to_double(0x4330000000000000ull | ((b >> 52) & 0x7ff)) - 4503599627370496.0) - 1023.0;
  double m = bits_to_double((b & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull);  // [1, 2)
  const bool big = m > 1.4142135623730951;
  m = big ? 0.5 * m : m;
  e = big ? e + 1.0 : e;
  const double t = (m - 1.0) / (m + 1.0), t2 = t * t;
  double p = 1.0 / 23;
  p = p * t2 + 1.0 / 21;
  p = p * t2 + 1.0 / 19;
  p = p * t2 + 1.0 / 17;
  p = p * t2 + 1.0 / 15;
  p = p * t2 + 1.0 / 13;
  p = p * t2 + 1.0 / 11;
  p = p * t2 + 1.0 / 9;
  p = p * t2 + 1.0 / 7;
  p = p * t2 + 1.0 / 5;
  p = p * t2 + 1.0 / 3;
  const double logm = 2.0 * t + 2.0 * t * t2 * p;
  // ln 2 = ln2_hi + ln2_lo with ln2_hi having trailing zero bits, so e ln2_hi is exact.
  constexpr double ln2_hi = 0.693147180369123816490, ln2_lo = 1.90821492927058770002e-10;
  return e * ln2_hi + (e * ln2_lo + logm);
}

// sin, cos of 2 pi u: q = round(4u), r = u - q/4 in [-1/8, 1/8] (exact), x = 2 pi r in [-pi/4, pi/4];
// Taylor to x^17 (sin) and x^18 (cos): truncation below 5e-17 there.
inline void sincos_inline(double u, double& s_out, double& c_out) {
  const double q = std::floor(4.0 * u + 0.5);  // 0 <= q <= 4
  const double x = (u - 0.25 * q) * 6.283185307179586476925286766559;
  const double x2 = x * x;
  // sin x = x + x x2 P(x2), P = -1/3! + x2/5! - ... + x2^7/17!  (Horner from the top)
  double s = 1.0 / 355687428096000.0;  // 1/17!
  s = s * x2 - 1.0 / 1307674368000.0;  // 1/15!
  s = s * x2 + 1.0 / 6227020800.0;     // 1/13!
  s = s * x2 - 1.0 / 39916800.0;       // 1/11!
  s = s * x2 + 1.0 / 362880.0;         // 1/9!
  s = s * x2 - 1.0 / 5040.0;           // 1/7!
  s = s * x2 + 1.0 / 120.0;            // 1/5!
  s = s * x2 - 1.0 / 6.0;              // 1/3!
  s = x + x * x2 * s;
  // cos x = 1 + x2 Q(x2), Q = -1/2! + x2/4! - ... - x2^8/18!
  double c = -1.0 / 6402373705728000.0;  // 1/18!
  c = c * x2 + 1.0 / 20922789888000.0;   // 1/16!
  c = c * x2 - 1.0 / 87178291200.0;      // 1/14!
  c = c * x2 + 1.0 / 479001600.0;        // 1/12!
  c = c * x2 - 1.0 / 3628800.0;          // 1/10!
  c = c * x2 + 1.0 / 40320.0;            // 1/8!
  c = c * x2 - 1.0 / 720.0;              // 1/6!
  c = c * x2 + 1.0 / 24.0;               // 1/4!
  c = c * x2 - 0.5;                      // 1/2!
  c = 1.0 + x2 * c;
  // Quadrant q mod 4 (in doubles, so that the selects vectorise with the rest): angle = q pi/2 + x.
  const double qm = q == 4.0 ? 0.0 : q;
  const bool swap = qm == 1.0 || qm == 3.0;
  const double ss = swap ? c : s, cc = swap ? s : c;
  s_out = qm >= 2.0 ? -ss : ss;
  c_out = (qm == 1.0 || qm == 2.0) ? -cc : cc;
}


#if defined(MOELAB_ROUTING_AVX2)
// The same arithmetic as unit_open, log_inline, sincos_inline, four lanes at a time (GCC does not
// if-convert and vectorise the scalar versions; measured 22 ns/normal scalar vs the timing in
// bench/RESULTS.md with this kernel).
inline __m256d unit_open4(const std::uint32_t* a, const std::uint32_t* b) {
  const __m256i hi = _mm256_slli_epi64(_mm256_srli_epi64(_mm256_cvtepu32_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a))), 6), 26);
  const __m256i lo = _mm256_srli_epi64(_mm256_cvtepu32_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b))), 6);
  const __m256i bits = _mm256_or_si256(_mm256_or_si256(hi, lo), _mm256_set1_epi64x(0x4330000000000000ll));
  const __m256d exact = _mm256_sub_pd(_mm256_castsi256_pd(bits), _mm256_set1_pd(4503599627370496.0));
  return _mm256_mul_pd(_mm256_add_pd(exact, _mm256_set1_pd(0.5)), _mm256_set1_pd(0x1.0p-52));
}

inline __m256d log4(__m256d u) {
  const __m256i b = _mm256_castpd_si256(u);
  const __m256i eb = _mm256_or_si256(_mm256_srli_epi64(b, 52), _mm256_set1_epi64x(0x4330000000000000ll));
  __m256d e = _mm256_sub_pd(_mm256_sub_pd(_mm256_castsi256_pd(eb), _mm256_set1_pd(4503599627370496.0)), _mm256_set1_pd(1023.0));
  __m256d m = _mm256_castsi256_pd(_mm256_or_si256(_mm256_and_si256(b, _mm256_set1_epi64x(0x000FFFFFFFFFFFFFll)),
                                                  _mm256_set1_epi64x(0x3FF0000000000000ll)));
  const __m256d big = _mm256_cmp_pd(m, _mm256_set1_pd(1.4142135623730951), _CMP_GT_OQ);
  m = _mm256_blendv_pd(m, _mm256_mul_pd(m, _mm256_set1_pd(0.5)), big);
  e = _mm256_blendv_pd(e, _mm256_add_pd(e, _mm256_set1_pd(1.0)), big);
  const __m256d one = _mm256_set1_pd(1.0);
  const __m256d t = _mm256_div_pd(_mm256_sub_pd(m, one), _mm256_add_pd(m, one)), t2 = _mm256_mul_pd(t, t);
  __m256d p = _mm256_set1_pd(1.0 / 23);
  for (double cf : {1.0 / 21, 1.0 / 19, 1.0 / 17, 1.0 / 15, 1.0 / 13, 1.0 / 11, 1.0 / 9, 1.0 / 7, 1.0 / 5, 1.0 / 3})
    p = _mm256_fmadd_pd(p, t2, _mm256_set1_pd(cf));
  const __m256d two_t = _mm256_add_pd(t, t);
  const __m256d logm = _mm256_fmadd_pd(_mm256_mul_pd(two_t, t2), p, two_t);
  constexpr double ln2_hi = 0.693147180369123816490, ln2_lo = 1.90821492927058770002e-10;
  return _mm256_fmadd_pd(e, _mm256_set1_pd(ln2_hi), _mm256_fmadd_pd(e, _mm256_set1_pd(ln2_lo), logm));
}

inline void sincos4(__m256d u, __m256d& s_out, __m256d& c_out) {
  const __m256d q = _mm256_floor_pd(_mm256_fmadd_pd(u, _mm256_set1_pd(4.0), _mm256_set1_pd(0.5)));
  const __m256d x = _mm256_mul_pd(_mm256_fnmadd_pd(q, _mm256_set1_pd(0.25), u), _mm256_set1_pd(6.283185307179586476925286766559));
  const __m256d x2 = _mm256_mul_pd(x, x);
  __m256d s = _mm256_set1_pd(1.0 / 355687428096000.0);
  for (double cf : {-1.0 / 1307674368000.0, 1.0 / 6227020800.0, -1.0 / 39916800.0, 1.0 / 362880.0, -1.0 / 5040.0, 1.0 / 120.0, -1.0 / 6.0})
    s = _mm256_fmadd_pd(s, x2, _mm256_set1_pd(cf));
  s = _mm256_fmadd_pd(_mm256_mul_pd(x, x2), s, x);
  __m256d c = _mm256_set1_pd(-1.0 / 6402373705728000.0);
  for (double cf : {1.0 / 20922789888000.0, -1.0 / 87178291200.0, 1.0 / 479001600.0, -1.0 / 3628800.0, 1.0 / 40320.0, -1.0 / 720.0,
                    1.0 / 24.0, -0.5})
    c = _mm256_fmadd_pd(c, x2, _mm256_set1_pd(cf));
  c = _mm256_fmadd_pd(x2, c, _mm256_set1_pd(1.0));
  const __m256d qm = _mm256_blendv_pd(q, _mm256_setzero_pd(), _mm256_cmp_pd(q, _mm256_set1_pd(4.0), _CMP_EQ_OQ));
  const __m256d is1 = _mm256_cmp_pd(qm, _mm256_set1_pd(1.0), _CMP_EQ_OQ), is2 = _mm256_cmp_pd(qm, _mm256_set1_pd(2.0), _CMP_EQ_OQ),
                is3 = _mm256_cmp_pd(qm, _mm256_set1_pd(3.0), _CMP_EQ_OQ);
  const __m256d swap = _mm256_or_pd(is1, is3);
  const __m256d ss = _mm256_blendv_pd(s, c, swap), cc = _mm256_blendv_pd(c, s, swap);
  const __m256d sign = _mm256_set1_pd(-0.0);
  s_out = _mm256_xor_pd(ss, _mm256_and_pd(_mm256_or_pd(is2, is3), sign));
  c_out = _mm256_xor_pd(cc, _mm256_and_pd(_mm256_or_pd(is1, is2), sign));
}
#endif

}  // namespace

double polynomial_log(double u) { return log_inline(u); }
void polynomial_sincos_2pi(double u, double& s, double& c) { sincos_inline(u, s, c); }

void fill_normal_blocks(const DrawAddress& a, std::uint64_t first_block, std::uint64_t blocks, double* out) {
  alignas(64) std::uint32_t c0[kW], c1[kW], c2[kW], c3[kW];
  alignas(64) double z0[kW], z1[kW];
  const auto t_lo = static_cast<std::uint32_t>(a.trial), t_hi = static_cast<std::uint32_t>(a.trial >> 32);
  for (std::uint64_t done = 0; done < blocks; done += kW) {
    const int n = static_cast<int>(std::min<std::uint64_t>(kW, blocks - done));
    for (int i = 0; i < kW; ++i) {
      c0[i] = static_cast<std::uint32_t>(first_block + done + static_cast<std::uint64_t>(i));  // block counter (32 bits, as philox_block)
      c1[i] = t_lo;
      c2[i] = t_hi;
      c3[i] = a.tag;
    }
    std::uint32_t k0 = static_cast<std::uint32_t>(a.seed), k1 = static_cast<std::uint32_t>(a.seed >> 32);
    for (int round = 0; round < 10; ++round) {
      for (int i = 0; i < kW; ++i) {
        const std::uint64_t p0 = static_cast<std::uint64_t>(0xD2511F53u) * c0[i];
        const std::uint64_t p1 = static_cast<std::uint64_t>(0xCD9E8D57u) * c2[i];
        const std::uint32_t n0 = static_cast<std::uint32_t>(p1 >> 32) ^ c1[i] ^ k0;
        const std::uint32_t n2 = static_cast<std::uint32_t>(p0 >> 32) ^ c3[i] ^ k1;
        c1[i] = static_cast<std::uint32_t>(p1);
        c3[i] = static_cast<std::uint32_t>(p0);
        c0[i] = n0;
        c2[i] = n2;
      }
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
#if defined(MOELAB_ROUTING_AVX2)
    for (int i = 0; i < kW; i += 4) {
      const __m256d radius = _mm256_sqrt_pd(_mm256_mul_pd(_mm256_set1_pd(-2.0), log4(unit_open4(c0 + i, c1 + i))));
      __m256d s, c;
      sincos4(unit_open4(c2 + i, c3 + i), s, c);
      _mm256_store_pd(z0 + i, _mm256_mul_pd(radius, c));
      _mm256_store_pd(z1 + i, _mm256_mul_pd(radius, s));
    }
#else
    for (int i = 0; i < kW; ++i) {
      const double radius = std::sqrt(-2.0 * log_inline(unit_open(c0[i], c1[i])));
      double s, c;
      sincos_inline(unit_open(c2[i], c3[i]), s, c);
      z0[i] = radius * c;
      z1[i] = radius * s;
    }
#endif
    for (int i = 0; i < n; ++i) {
      out[2 * (done + static_cast<std::uint64_t>(i))] = z0[i];
      out[2 * (done + static_cast<std::uint64_t>(i)) + 1] = z1[i];
    }
  }
}

}  // namespace moelab::routing
