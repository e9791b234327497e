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
/// Bulk normals for the CPU (host only): out[k] = normal j = first + k of `stream`, from the SAME
/// Philox blocks and the same Box–Muller map z0 = r cos(2 pi u2), z1 = r sin(2 pi u2),
/// r = sqrt(-2 log u1) as RandomStream::normal, but evaluated 32 blocks at a time with branch-free
/// polynomial log and sin/cos (distributions.cpp) that the compiler vectorises, instead of the scalar
/// libm calls. The uniforms are bit-identical; each normal differs from RandomStream::normal(j) by
/// floating-point rounding only (< 4 ulp of the radius, tests/linalg/normal_bulk_test.cpp), so the law is
/// the same; the bytes of what is computed from them are not.
/// Normal j has the same value whatever window [first, first + count) it is requested in.
/// About 4x faster than fill_normal on x86-64-v3 (4.8 against 19 ns per normal, CPU time on this
/// project's 2-core EPYC); what the CPU design paths use (noisy training sets, spectra matrices).
void fill_normal_bulk(const RandomStream& stream, std::uint64_t first, std::uint64_t count, double* out);

/// What the CPU design paths call (noisy training sets, spectra matrices): fill_normal_bulk, or
/// RandomStream::fill_normal (libm, the bytes of moelab before issue 15) when built with
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
