// Philox4x32-10 counter-based random number generator, callable from host and device code.
//
// Reference: Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as 1, 2, 3", SC'11.
// The round function, multipliers and Weyl key increments are the published ones; the known-answer
// vectors of that paper are checked in tests/core/philox_test.cpp.
//
// moelab addresses every draw by (seed, stream tag, trial, draw index) -- see DrawAddress below -- so
// that any trial can be regenerated independently of thread count, backend or order of evaluation.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define MOELAB_HD __host__ __device__ __forceinline__
#else
#define MOELAB_HD inline
#endif

namespace moelab {

struct Philox4x32 {
  std::uint32_t v[4];
};

namespace detail {
constexpr std::uint32_t kPhiloxM0 = 0xD2511F53u;
constexpr std::uint32_t kPhiloxM1 = 0xCD9E8D57u;
constexpr std::uint32_t kPhiloxW0 = 0x9E3779B9u;  // golden ratio
constexpr std::uint32_t kPhiloxW1 = 0xBB67AE85u;  // sqrt(3) - 1

MOELAB_HD void mulhilo32(std::uint32_t a, std::uint32_t b, std::uint32_t& hi, std::uint32_t& lo) {
  const std::uint64_t p = static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b);
  hi = static_cast<std::uint32_t>(p >> 32);
  lo = static_cast<std::uint32_t>(p);
}
}  // namespace detail

/// One Philox4x32-10 block: 4 x 32 random bits for counter `c` under key (k0, k1).
MOELAB_HD Philox4x32 philox4x32_10(Philox4x32 c, std::uint32_t k0, std::uint32_t k1) {
  for (int round = 0; round < 10; ++round) {
    std::uint32_t hi0, lo0, hi1, lo1;
    detail::mulhilo32(detail::kPhiloxM0, c.v[0], hi0, lo0);
    detail::mulhilo32(detail::kPhiloxM1, c.v[2], hi1, lo1);
    c = Philox4x32{{hi1 ^ c.v[1] ^ k0, lo1, hi0 ^ c.v[3] ^ k1, lo0}};
    k0 += detail::kPhiloxW0;
    k1 += detail::kPhiloxW1;
  }
  return c;
}

/// Where a random draw lives. Counter layout: {block, trial lo32, trial hi32, stream tag};
/// key = the 64-bit seed. One block yields 4 uint32, 2 uniform doubles or 2 normals.
struct DrawAddress {
  std::uint64_t seed;
  std::uint32_t tag;    // a StreamTag (stream_tags.hpp): which quantity is drawn
  std::uint64_t trial;  // Monte-Carlo trial index (or any other independent replicate index)
};

MOELAB_HD Philox4x32 philox_block(const DrawAddress& a, std::uint32_t block) {
  const Philox4x32 c{{block, static_cast<std::uint32_t>(a.trial), static_cast<std::uint32_t>(a.trial >> 32), a.tag}};
  return philox4x32_10(c, static_cast<std::uint32_t>(a.seed), static_cast<std::uint32_t>(a.seed >> 32));
}

/// Two 32-bit words -> a double uniform on the open interval (0, 1): 52 random bits, centred in
/// their cell, so the extremes are 2^-53 and 1 - 2^-53 (53 bits would round the top cell to 1.0).
MOELAB_HD double uniform_open01(std::uint32_t a, std::uint32_t b) {
  const std::uint64_t bits = (static_cast<std::uint64_t>(a >> 6) << 26) | static_cast<std::uint64_t>(b >> 6);
  return (static_cast<double>(bits) + 0.5) * 0x1.0p-52;
}

}  // namespace moelab
