// Distributions on top of Philox, usable from host and device.
#pragma once

#include <cmath>
#include <cstdint>

#include "moelab/core/philox.hpp"
#include "moelab/core/stream_tags.hpp"

namespace moelab {

/// Box-Muller: one Philox block (4 words = 2 uniforms) -> 2 independent standard normals.
MOELAB_HD void box_muller(const Philox4x32& r, double& z0, double& z1) {
  const double u1 = uniform_open01(r.v[0], r.v[1]);
  const double u2 = uniform_open01(r.v[2], r.v[3]);
  const double radius = sqrt(-2.0 * log(u1));
  const double angle = 6.283185307179586476925286766559 * u2;
  z0 = radius * cos(angle);
  z1 = radius * sin(angle);
}

/// Random-access source of draws for one (seed, tag, trial). Normal draw j comes from block j/2,
/// uniform draw j from block j/2 as well: normals and uniforms of one stream are not independent,
/// so use separate tags for them.
class RandomStream {
 public:
  MOELAB_HD RandomStream(std::uint64_t seed, StreamTag tag, std::uint64_t trial)
      : addr_{seed, static_cast<std::uint32_t>(tag), trial} {}

  MOELAB_HD double normal(std::uint64_t j) const {
    double z0, z1;
    box_muller(philox_block(addr_, static_cast<std::uint32_t>(j >> 1)), z0, z1);
    return (j & 1u) ? z1 : z0;
  }
  MOELAB_HD double uniform(std::uint64_t j) const {
    const Philox4x32 r = philox_block(addr_, static_cast<std::uint32_t>(j >> 1));
    return (j & 1u) ? uniform_open01(r.v[2], r.v[3]) : uniform_open01(r.v[0], r.v[1]);
  }
  /// Fill out[0..count) with normals j = first .. first+count-1 (two per Philox call).
  MOELAB_HD void fill_normal(std::uint64_t first, std::uint64_t count, double* out) const {
    std::uint64_t j = first, k = 0;
    if ((j & 1u) && k < count) out[k++] = normal(j++);
    for (; k + 1 < count; k += 2, j += 2) {
      double z0, z1;
      box_muller(philox_block(addr_, static_cast<std::uint32_t>(j >> 1)), z0, z1);
      out[k] = z0;
      out[k + 1] = z1;
    }
    if (k < count) out[k] = normal(j);
  }
  MOELAB_HD const DrawAddress& address() const { return addr_; }

 private:
  DrawAddress addr_;
};

#if !defined(__CUDACC__)
/// Bulk normals for the CPU (host only), the one implementation (distributions.cpp): normals
/// 2 first_block .. 2 (first_block + blocks) - 1 of the stream at `address` (block b gives normals
/// 2b and 2b + 1, block numbers wrapping at 2^32 like RandomStream's) into out[0 .. 2 blocks). The
/// SAME Philox blocks and the same Box–Muller map z0 = r cos(2 pi u2), z1 = r sin(2 pi u2),
/// r = sqrt(-2 log u1) as RandomStream::normal, with a polynomial log and sin/cos evaluated in AVX2
/// registers instead of the scalar libm calls: the uniforms are bit-identical; each normal differs
/// from RandomStream::normal(j) by floating-point rounding only (|difference| <= 2e-14, a few ulp of
/// the radius: tests/linalg/normal_bulk_test.cpp, tests/routing/batched_normals_test.cpp), so the law
/// is the same; the bytes of what is computed from them are not. Normal j has the same value whatever
/// window it is requested in.
void fill_normal_blocks(const DrawAddress& address, std::uint64_t first_block, std::uint64_t blocks, double* out);

/// The path fill_normal_blocks takes on this CPU: "avx512" (chosen at run time when the CPU has
/// AVX-512 F and DQ; the environment variable MOELAB_NO_AVX512 declines it), "avx2" or "scalar" (a
/// build without AVX2/FMA). The AVX-512 and AVX2 paths give bit-identical normals.
const char* normal_kernel_path();
/// fill_normal_blocks through the AVX2 (or scalar) path whatever the CPU: for tests comparing paths.
void fill_normal_blocks_without_avx512(const DrawAddress& address, std::uint64_t first_block, std::uint64_t blocks,
                                       double* out);

/// out[k] = normal j = first + k of `stream`, k < count (fill_normal_blocks, any window: odd `first`
/// and odd ends included).
void fill_normal_bulk(const RandomStream& stream, std::uint64_t first, std::uint64_t count, double* out);

/// log(u) for 0 < u < 1 (normal doubles) as fill_normal_blocks evaluates it (scalar form): exponent
/// split and the atanh series of the mantissa, relative error below 4e-16. Exposed for tests.
double polynomial_log(double u);
/// sin and cos of 2 pi u for 0 <= u <= 1 as fill_normal_blocks evaluates them (scalar form): quadrant
/// reduction (exact) and Taylor polynomials on [-pi/4, pi/4]; absolute error below 4e-16.
void polynomial_sincos_2pi(double u, double& s, double& c);

/// What the CPU design paths call (noisy training sets, spectra matrices): fill_normal_bulk, or
/// RandomStream::fill_normal (libm, the bytes of earlier moelab versions) when built with
/// -DMOELAB_SCALAR_NORMALS.
inline void fill_normal_cpu(const RandomStream& stream, std::uint64_t first, std::uint64_t count, double* out) {
#if defined(MOELAB_SCALAR_NORMALS)
  stream.fill_normal(first, count, out);
#else
  fill_normal_bulk(stream, first, count, out);
#endif
}
#endif

}  // namespace moelab
