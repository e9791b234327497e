// Standard normals of a Philox stream in bulk: the same draws as RandomStream::normal (same blocks,
// same Box-Muller pairing, docs/conventions.md), computed 64 blocks at a time with loops the compiler
// vectorises (AVX2 at -march=x86-64-v3): Philox rounds with 32x32->64-bit multiplies, uniforms by
// exact integer-to-double conversion, and Box-Muller with a polynomial log and sincos in place of the
// libm calls. Agreement with RandomStream::normal: |difference| <= 2e-14 (measured maximum over 10^7
// draws 3.6e-15, tests/routing/batched_normals_test.cpp); the routing-region Monte-Carlo spends most
// of its time here (bench/RESULTS.md), which is why it exists.
#pragma once

#include <cstdint>

#include "moelab/core/philox.hpp"

namespace moelab::routing {

/// Normals 2 first_block .. 2 (first_block + blocks) - 1 of the stream at `address` (block b gives
/// normals 2b and 2b + 1) into out[0 .. 2 blocks).
void fill_normal_blocks(const DrawAddress& address, std::uint64_t first_block, std::uint64_t blocks, double* out);

/// log(u) for 0 < u < 1 (normal doubles): exponent split and the atanh series of the mantissa;
/// relative error below 4e-16. Exposed for tests.
double polynomial_log(double u);
/// sin and cos of 2 pi u for 0 <= u <= 1: octant reduction (exact) and Taylor polynomials on
/// [-pi/4, pi/4]; absolute error below 4e-16. Exposed for tests.
void polynomial_sincos_2pi(double u, double& s, double& c);

}  // namespace moelab::routing
