// Bulk standard normals, the one CPU implementation (noisy designs, spectra matrices, routing
// region masses): the Box–Muller transform (Box & Muller 1958, z0 = sqrt(-2 log u1) cos(2 pi u2),
// z1 = sqrt(-2 log u1) sin(2 pi u2)) of the same Philox4x32-10 blocks (Salmon et al. 2011) as
// RandomStream::normal, 8 blocks at a time in AVX2 registers (Philox with 32 x 32 -> 64-bit vector
// multiplies, uniforms by exact integer-to-double conversion, a polynomial log and sincos in place
// of libm). The arithmetic of the transform is that of the former routing/batched_normals.cpp (the
// routing CSVs keep their bytes); the former core kernel (a different polynomial log, bit-level
// quadrant selects) is gone (two implementations -> one).
#include "moelab/core/distributions.hpp"

// lib/CMakeLists.txt compiles this file with -fno-math-errno -fno-trapping-math: sqrt is only taken
// of a non-negative number here and no FP exception is ever inspected (the scalar path's loops
// vectorise only so).

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define MOELAB_NORMALS_AVX2 1
#endif

namespace moelab {

namespace {

inline double bits_to_double(std::uint64_t b) { return std::bit_cast<double>(b); }
inline std::uint64_t double_to_bits(double d) { return std::bit_cast<std::uint64_t>(d); }

constexpr double kTwo52 = 4503599627370496.0;                // 2^52
constexpr std::uint64_t kTwo52Bits = 0x4330000000000000ull;  // its bit pattern
constexpr double kTwoPi = 6.283185307179586476925286766559;
// ln 2 = kLn2Hi + kLn2Lo with kLn2Hi having trailing zero bits, so e kLn2Hi is exact.
constexpr double kLn2Hi = 0.693147180369123816490, kLn2Lo = 1.90821492927058770002e-10;

/// uniform_open01 of philox.hpp, bit-identical: 52 random bits, centred in their cell. The 52-bit
/// integer is converted exactly by the 2^52 magic-number trick (AVX2 has no 64-bit integer-to-double
/// convert).
inline double unit_open(std::uint32_t a, std::uint32_t b) {
  const std::uint64_t bits = (static_cast<std::uint64_t>(a >> 6) << 26) | static_cast<std::uint64_t>(b >> 6);
  return (bits_to_double(kTwo52Bits | bits) - kTwo52 + 0.5) * 0x1.0p-52;
}

// log(u), u = 2^e m, m in [sqrt(1/2), sqrt 2): log m = 2 atanh(t), t = (m - 1)/(m + 1), |t| <= 0.1716,
// t^2 <= 0.02944; 2 atanh(t) = 2 t sum_n t^(2n) / (2n + 1), n <= 11 (the next term is below 1e-18
// relative).
inline double log_inline(double u) {
  const std::uint64_t b = double_to_bits(u);
  // Biased exponent to double exactly by the 2^52 trick.
  double e = (bits_to_double(kTwo52Bits | ((b >> 52) & 0x7ff)) - kTwo52) - 1023.0;
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
  return e * kLn2Hi + (e * kLn2Lo + logm);
}

// sin, cos of 2 pi u: q = round(4u), r = u - q/4 in [-1/8, 1/8] (exact), x = 2 pi r in [-pi/4, pi/4];
// Taylor to x^17 (sin) and x^18 (cos): truncation below 5e-17 there; then rotated by q quarter turns.
inline void sincos_inline(double u, double& s_out, double& c_out) {
  const double q = std::floor(4.0 * u + 0.5);  // 0 <= q <= 4
  const double x = (u - 0.25 * q) * kTwoPi;
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
  // Quadrant q mod 4: angle = q pi/2 + x.
  const double qm = q == 4.0 ? 0.0 : q;
  const bool swap = qm == 1.0 || qm == 3.0;
  const double ss = swap ? c : s, cc = swap ? s : c;
  s_out = qm >= 2.0 ? -ss : ss;
  c_out = (qm == 1.0 || qm == 2.0) ? -cc : cc;
}

#if defined(MOELAB_NORMALS_AVX2)
// The same arithmetic as unit_open, log_inline and sincos_inline, four lanes at a time, with the
// multiply-adds fused (so these bytes are those of the AVX2 build; the scalar path above serves
// builds without AVX2/FMA and differs from it by rounding only).
inline __m256d unit_open4(__m256i a, __m256i b) {  // a, b: 32-bit words in 64-bit lanes
  const __m256i hi = _mm256_slli_epi64(_mm256_srli_epi64(a, 6), 26);
  const __m256i lo = _mm256_srli_epi64(b, 6);
  const __m256i bits = _mm256_or_si256(_mm256_or_si256(hi, lo), _mm256_set1_epi64x(static_cast<long long>(kTwo52Bits)));
  const __m256d exact = _mm256_sub_pd(_mm256_castsi256_pd(bits), _mm256_set1_pd(kTwo52));
  return _mm256_mul_pd(_mm256_add_pd(exact, _mm256_set1_pd(0.5)), _mm256_set1_pd(0x1.0p-52));
}

inline __m256d log4(__m256d u) {
  const __m256i b = _mm256_castpd_si256(u);
  const __m256i eb = _mm256_or_si256(_mm256_srli_epi64(b, 52), _mm256_set1_epi64x(static_cast<long long>(kTwo52Bits)));
  __m256d e = _mm256_sub_pd(_mm256_sub_pd(_mm256_castsi256_pd(eb), _mm256_set1_pd(kTwo52)), _mm256_set1_pd(1023.0));
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
  return _mm256_fmadd_pd(e, _mm256_set1_pd(kLn2Hi), _mm256_fmadd_pd(e, _mm256_set1_pd(kLn2Lo), logm));
}

inline void sincos4(__m256d u, __m256d& s_out, __m256d& c_out) {
  const __m256d q = _mm256_floor_pd(_mm256_fmadd_pd(u, _mm256_set1_pd(4.0), _mm256_set1_pd(0.5)));
  const __m256d x = _mm256_mul_pd(_mm256_fnmadd_pd(q, _mm256_set1_pd(0.25), u), _mm256_set1_pd(kTwoPi));
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

/// Philox4x32-10 (Salmon et al. 2011; philox.hpp) of 4 blocks, the counter's 32-bit words c0..c3 held
/// in 64-bit lanes so that one vpmuludq gives four 32 x 32 -> 64-bit products (no shuffles).
struct Counters4 {
  __m256i c0, c1, c2, c3;
};

inline void philox_round(Counters4& s, __m256i m0, __m256i m1, __m256i lo32, __m256i k0, __m256i k1) {
  const __m256i p0 = _mm256_mul_epu32(s.c0, m0), p1 = _mm256_mul_epu32(s.c2, m1);
  const __m256i n0 = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p1, 32), s.c1), k0);
  const __m256i n2 = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p0, 32), s.c3), k1);
  s.c1 = _mm256_and_si256(p1, lo32);
  s.c3 = _mm256_and_si256(p0, lo32);
  s.c0 = n0;
  s.c2 = n2;
}

/// Box–Muller of 4 blocks: z0 = r cos(2 pi u2), z1 = r sin(2 pi u2), r = sqrt(-2 log u1), stored
/// interleaved as normals 2b, 2b + 1 (out[0..8)).
inline void box_muller4(const Counters4& s, double* out) {
  const __m256d radius = _mm256_sqrt_pd(_mm256_mul_pd(_mm256_set1_pd(-2.0), log4(unit_open4(s.c0, s.c1))));
  __m256d sn, cs;
  sincos4(unit_open4(s.c2, s.c3), sn, cs);
  const __m256d z0 = _mm256_mul_pd(radius, cs), z1 = _mm256_mul_pd(radius, sn);
  const __m256d lo = _mm256_unpacklo_pd(z0, z1), hi = _mm256_unpackhi_pd(z0, z1);  // (a0 b0 a2 b2), (a1 b1 a3 b3)
  _mm256_storeu_pd(out, _mm256_permute2f128_pd(lo, hi, 0x20));
  _mm256_storeu_pd(out + 4, _mm256_permute2f128_pd(lo, hi, 0x31));
}
#endif

#if defined(MOELAB_NORMALS_AVX2) && defined(__GNUC__) && !defined(MOELAB_NO_AVX512)
#define MOELAB_NORMALS_AVX512 1
// The same kernel, 8 lanes per register, for CPUs with AVX-512 F + DQ (chosen at run time: the build
// targets x86-64-v3). Every lane runs the same IEEE operations as the AVX2 path (the same fused
// multiply-adds, correctly rounded division and square root, exact floor, sign by xor), so the
// normals are bit-identical to it (tests/linalg/normal_bulk_test.cpp checks both paths agree);
// about 1.3x the AVX2 throughput on this project's Zen 5 (full-width AVX-512 units).
#define MOELAB_AVX512 __attribute__((target("avx512f,avx512dq")))

MOELAB_AVX512 inline __m512d unit_open8(__m512i a, __m512i b) {
  const __m512i hi = _mm512_slli_epi64(_mm512_srli_epi64(a, 6), 26);
  const __m512i lo = _mm512_srli_epi64(b, 6);
  const __m512i bits = _mm512_or_si512(_mm512_or_si512(hi, lo), _mm512_set1_epi64(static_cast<long long>(kTwo52Bits)));
  const __m512d exact = _mm512_sub_pd(_mm512_castsi512_pd(bits), _mm512_set1_pd(kTwo52));
  return _mm512_mul_pd(_mm512_add_pd(exact, _mm512_set1_pd(0.5)), _mm512_set1_pd(0x1.0p-52));
}

MOELAB_AVX512 inline __m512d log8(__m512d u) {
  const __m512i b = _mm512_castpd_si512(u);
  const __m512i eb = _mm512_or_si512(_mm512_srli_epi64(b, 52), _mm512_set1_epi64(static_cast<long long>(kTwo52Bits)));
  __m512d e = _mm512_sub_pd(_mm512_sub_pd(_mm512_castsi512_pd(eb), _mm512_set1_pd(kTwo52)), _mm512_set1_pd(1023.0));
  __m512d m = _mm512_castsi512_pd(_mm512_or_si512(_mm512_and_si512(b, _mm512_set1_epi64(0x000FFFFFFFFFFFFFll)),
                                                  _mm512_set1_epi64(0x3FF0000000000000ll)));
  const __mmask8 big = _mm512_cmp_pd_mask(m, _mm512_set1_pd(1.4142135623730951), _CMP_GT_OQ);
  m = _mm512_mask_blend_pd(big, m, _mm512_mul_pd(m, _mm512_set1_pd(0.5)));
  e = _mm512_mask_blend_pd(big, e, _mm512_add_pd(e, _mm512_set1_pd(1.0)));
  const __m512d one = _mm512_set1_pd(1.0);
  const __m512d t = _mm512_div_pd(_mm512_sub_pd(m, one), _mm512_add_pd(m, one)), t2 = _mm512_mul_pd(t, t);
  __m512d p = _mm512_set1_pd(1.0 / 23);
  for (double cf : {1.0 / 21, 1.0 / 19, 1.0 / 17, 1.0 / 15, 1.0 / 13, 1.0 / 11, 1.0 / 9, 1.0 / 7, 1.0 / 5, 1.0 / 3})
    p = _mm512_fmadd_pd(p, t2, _mm512_set1_pd(cf));
  const __m512d two_t = _mm512_add_pd(t, t);
  const __m512d logm = _mm512_fmadd_pd(_mm512_mul_pd(two_t, t2), p, two_t);
  return _mm512_fmadd_pd(e, _mm512_set1_pd(kLn2Hi), _mm512_fmadd_pd(e, _mm512_set1_pd(kLn2Lo), logm));
}

MOELAB_AVX512 inline void sincos8(__m512d u, __m512d& s_out, __m512d& c_out) {
  const __m512d q = _mm512_roundscale_pd(_mm512_fmadd_pd(u, _mm512_set1_pd(4.0), _mm512_set1_pd(0.5)),
                                         _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);  // floor
  const __m512d x = _mm512_mul_pd(_mm512_fnmadd_pd(q, _mm512_set1_pd(0.25), u), _mm512_set1_pd(kTwoPi));
  const __m512d x2 = _mm512_mul_pd(x, x);
  __m512d s = _mm512_set1_pd(1.0 / 355687428096000.0);
  for (double cf : {-1.0 / 1307674368000.0, 1.0 / 6227020800.0, -1.0 / 39916800.0, 1.0 / 362880.0, -1.0 / 5040.0, 1.0 / 120.0, -1.0 / 6.0})
    s = _mm512_fmadd_pd(s, x2, _mm512_set1_pd(cf));
  s = _mm512_fmadd_pd(_mm512_mul_pd(x, x2), s, x);
  __m512d c = _mm512_set1_pd(-1.0 / 6402373705728000.0);
  for (double cf : {1.0 / 20922789888000.0, -1.0 / 87178291200.0, 1.0 / 479001600.0, -1.0 / 3628800.0, 1.0 / 40320.0, -1.0 / 720.0,
                    1.0 / 24.0, -0.5})
    c = _mm512_fmadd_pd(c, x2, _mm512_set1_pd(cf));
  c = _mm512_fmadd_pd(x2, c, _mm512_set1_pd(1.0));
  const __m512d qm = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(q, _mm512_set1_pd(4.0), _CMP_EQ_OQ), q, _mm512_setzero_pd());
  const __mmask8 is1 = _mm512_cmp_pd_mask(qm, _mm512_set1_pd(1.0), _CMP_EQ_OQ);
  const __mmask8 is2 = _mm512_cmp_pd_mask(qm, _mm512_set1_pd(2.0), _CMP_EQ_OQ);
  const __mmask8 is3 = _mm512_cmp_pd_mask(qm, _mm512_set1_pd(3.0), _CMP_EQ_OQ);
  const __mmask8 swap = static_cast<__mmask8>(is1 | is3);
  const __m512d ss = _mm512_mask_blend_pd(swap, s, c), cc = _mm512_mask_blend_pd(swap, c, s);
  const __m512d sign = _mm512_set1_pd(-0.0);
  s_out = _mm512_mask_xor_pd(ss, static_cast<__mmask8>(is2 | is3), ss, sign);
  c_out = _mm512_mask_xor_pd(cc, static_cast<__mmask8>(is1 | is2), cc, sign);
}

struct Counters8 {
  __m512i c0, c1, c2, c3;
};

MOELAB_AVX512 inline void philox_round8(Counters8& s, __m512i m0, __m512i m1, __m512i lo32, __m512i k0, __m512i k1) {
  const __m512i p0 = _mm512_mul_epu32(s.c0, m0), p1 = _mm512_mul_epu32(s.c2, m1);
  const __m512i n0 = _mm512_xor_si512(_mm512_xor_si512(_mm512_srli_epi64(p1, 32), s.c1), k0);
  const __m512i n2 = _mm512_xor_si512(_mm512_xor_si512(_mm512_srli_epi64(p0, 32), s.c3), k1);
  s.c1 = _mm512_and_si512(p1, lo32);
  s.c3 = _mm512_and_si512(p0, lo32);
  s.c0 = n0;
  s.c2 = n2;
}

MOELAB_AVX512 inline void box_muller8(const Counters8& s, double* out) {
  const __m512d radius = _mm512_sqrt_pd(_mm512_mul_pd(_mm512_set1_pd(-2.0), log8(unit_open8(s.c0, s.c1))));
  __m512d sn, cs;
  sincos8(unit_open8(s.c2, s.c3), sn, cs);
  const __m512d z0 = _mm512_mul_pd(radius, cs), z1 = _mm512_mul_pd(radius, sn);
  const __m512i lo = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0), hi = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
  _mm512_storeu_pd(out, _mm512_permutex2var_pd(z0, lo, z1));      // a0 b0 a1 b1 a2 b2 a3 b3
  _mm512_storeu_pd(out + 8, _mm512_permutex2var_pd(z0, hi, z1));  // a4 b4 .. a7 b7
}

/// fill_normal_blocks on 16 blocks (two groups of 8 lanes) per pass.
MOELAB_AVX512 void fill_normal_blocks_avx512(const DrawAddress& a, std::uint64_t first_block, std::uint64_t blocks, double* out) {
  const __m512i m0 = _mm512_set1_epi64(detail::kPhiloxM0), m1 = _mm512_set1_epi64(detail::kPhiloxM1);
  const __m512i lo32 = _mm512_set1_epi64(0xffffffffll);
  const __m512i trial_lo = _mm512_set1_epi64(static_cast<std::uint32_t>(a.trial));
  const __m512i trial_hi = _mm512_set1_epi64(static_cast<std::uint32_t>(a.trial >> 32));
  const __m512i tag = _mm512_set1_epi64(a.tag);
  const __m512i iota = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0), eight = _mm512_set1_epi64(8);
  for (std::uint64_t done = 0; done < blocks; done += 16) {
    const __m512i base = _mm512_set1_epi64(static_cast<std::uint32_t>(first_block + done));  // wraps at 2^32
    Counters8 g[2];
    g[0].c0 = _mm512_and_si512(_mm512_add_epi64(base, iota), lo32);
    g[1].c0 = _mm512_and_si512(_mm512_add_epi64(base, _mm512_add_epi64(iota, eight)), lo32);
    for (auto& st : g) st.c1 = trial_lo, st.c2 = trial_hi, st.c3 = tag;
    std::uint32_t k0 = static_cast<std::uint32_t>(a.seed), k1 = static_cast<std::uint32_t>(a.seed >> 32);
    for (int round = 0; round < 10; ++round) {
      const __m512i kk0 = _mm512_set1_epi64(k0), kk1 = _mm512_set1_epi64(k1);
      philox_round8(g[0], m0, m1, lo32, kk0, kk1);
      philox_round8(g[1], m0, m1, lo32, kk0, kk1);
      k0 += detail::kPhiloxW0;
      k1 += detail::kPhiloxW1;
    }
    const std::uint64_t left = blocks - done;
    if (left >= 16) {
      box_muller8(g[0], out + 2 * done);
      box_muller8(g[1], out + 2 * done + 16);
    } else {
      double z[32];
      box_muller8(g[0], z);
      if (left > 8) box_muller8(g[1], z + 16);
      std::copy(z, z + 2 * left, out + 2 * done);
    }
  }
}

bool cpu_has_avx512() {
  static const bool yes = [] {
    if (std::getenv("MOELAB_NO_AVX512") != nullptr) return false;  // the AVX2 path, e.g. to compare
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
  }();
  return yes;
}
#endif

}  // namespace

double polynomial_log(double u) { return log_inline(u); }
void polynomial_sincos_2pi(double u, double& s, double& c) { sincos_inline(u, s, c); }

const char* normal_kernel_path() {
#if defined(MOELAB_NORMALS_AVX512)
  if (cpu_has_avx512()) return "avx512";
#endif
#if defined(MOELAB_NORMALS_AVX2)
  return "avx2";
#else
  return "scalar";
#endif
}

void fill_normal_blocks(const DrawAddress& a, std::uint64_t first_block, std::uint64_t blocks, double* out) {
#if defined(MOELAB_NORMALS_AVX512)
  if (cpu_has_avx512()) {
    fill_normal_blocks_avx512(a, first_block, blocks, out);
    return;
  }
#endif
  fill_normal_blocks_without_avx512(a, first_block, blocks, out);
}

void fill_normal_blocks_without_avx512(const DrawAddress& a, std::uint64_t first_block, std::uint64_t blocks, double* out) {
#if defined(MOELAB_NORMALS_AVX2)
  // 8 blocks (two groups of 4 lanes) per pass, their rounds interleaved: the multiply latency of one
  // group is hidden behind the other's.
  const __m256i m0 = _mm256_set1_epi64x(detail::kPhiloxM0), m1 = _mm256_set1_epi64x(detail::kPhiloxM1);
  const __m256i lo32 = _mm256_set1_epi64x(0xffffffffll);
  const __m256i trial_lo = _mm256_set1_epi64x(static_cast<std::uint32_t>(a.trial));
  const __m256i trial_hi = _mm256_set1_epi64x(static_cast<std::uint32_t>(a.trial >> 32));
  const __m256i tag = _mm256_set1_epi64x(a.tag);
  const __m256i iota = _mm256_set_epi64x(3, 2, 1, 0), four = _mm256_set1_epi64x(4);
  for (std::uint64_t done = 0; done < blocks; done += 8) {
    // Block counters wrap at 2^32, as philox_block's 32-bit block argument.
    const __m256i base = _mm256_set1_epi64x(static_cast<std::uint32_t>(first_block + done));
    Counters4 g[2];
    g[0].c0 = _mm256_and_si256(_mm256_add_epi64(base, iota), lo32);
    g[1].c0 = _mm256_and_si256(_mm256_add_epi64(base, _mm256_add_epi64(iota, four)), lo32);
    for (auto& s : g) s.c1 = trial_lo, s.c2 = trial_hi, s.c3 = tag;
    std::uint32_t k0 = static_cast<std::uint32_t>(a.seed), k1 = static_cast<std::uint32_t>(a.seed >> 32);
    for (int round = 0; round < 10; ++round) {
      const __m256i kk0 = _mm256_set1_epi64x(k0), kk1 = _mm256_set1_epi64x(k1);
      philox_round(g[0], m0, m1, lo32, kk0, kk1);
      philox_round(g[1], m0, m1, lo32, kk0, kk1);
      k0 += detail::kPhiloxW0;
      k1 += detail::kPhiloxW1;
    }
    const std::uint64_t left = blocks - done;
    if (left >= 8) {
      box_muller4(g[0], out + 2 * done);
      box_muller4(g[1], out + 2 * done + 8);
    } else {
      double z[16];
      box_muller4(g[0], z);
      if (left > 4) box_muller4(g[1], z + 8);
      std::copy(z, z + 2 * left, out + 2 * done);
    }
  }
#else
  for (std::uint64_t b = 0; b < blocks; ++b) {
    const Philox4x32 r = philox_block(a, static_cast<std::uint32_t>(first_block + b));
    const double radius = std::sqrt(-2.0 * log_inline(unit_open(r.v[0], r.v[1])));
    double sn, cs;
    sincos_inline(unit_open(r.v[2], r.v[3]), sn, cs);
    out[2 * b] = radius * cs;
    out[2 * b + 1] = radius * sn;
  }
#endif
}

void fill_normal_bulk(const RandomStream& stream, std::uint64_t first, std::uint64_t count, double* out) {
  if (count == 0) return;
  const DrawAddress& a = stream.address();
  std::uint64_t j = first, k = 0;
  double pair[2];
  if (j & 1u) {  // starts mid-block: its second normal
    fill_normal_blocks(a, j >> 1, 1, pair);
    out[k++] = pair[1];
    ++j;
  }
  const std::uint64_t whole = (count - k) / 2;
  fill_normal_blocks(a, j >> 1, whole, out + k);
  k += 2 * whole;
  j += 2 * whole;
  if (k < count) {  // ends mid-block: its first normal
    fill_normal_blocks(a, j >> 1, 1, pair);
    out[k] = pair[0];
  }
}

}  // namespace moelab
