// Uses a closed form (spectra), the study catalogue and the claim registry through the installed
// headers; prints what the test checks.
#include <cstdio>

#include "moelab/catalogue/catalogue.hpp"
#include "moelab/spectra/marchenko_pastur.hpp"

int main() {
  const moelab::spectra::MarchenkoPastur mp(0.5, 1.0);
  std::printf("mp_upper_edge %.12f\n", mp.upper_edge());  // (1 + sqrt(0.5))^2 = 2.914213562373
  std::printf("studies %zu\n", moelab::catalogue::studies().size());
  std::printf("claims %zu\n", moelab::catalogue::claims().all().size());
  return 0;
}
