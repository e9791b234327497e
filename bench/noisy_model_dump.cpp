// bench_noisy_model: writes the model instance of a noisy scenario ([model] table: Sigma_i, p_i,
// sigma2, beta_i*, exactly as `moelab run` builds them, noisy/model_params.cpp) to a text file, so that
// a baseline (bench/torch_fig3_gpu.py --model FILE) computes the same excess risks from the same
// instance instead of drawing its own beta* (issue: a 10% gap at n = 240 came from that alone).
//
//   bench_noisy_model scenarios/noisy_fig3.toml model.txt
//
// Format (one item a line, numbers in %.17g): "k K", "sigma2 S", "p p_0 ... p_{K-1}", then per block
// "block i d_i", "sigma <d_i^2 entries, row-major>", "beta <d_i entries>".
#include <cstdio>
#include <exception>
#include <string>

#include "moelab/core/version.hpp"
#include "moelab/noisy/model_params.hpp"
#include "moelab/scenario/params.hpp"
#include "moelab/scenario/scenario.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: bench_noisy_model SCENARIO.toml OUT.txt\n");
    return 2;
  }
  try {
    const moelab::Scenario sc = moelab::load_scenario(argv[1]);
    const moelab::ParamView view(sc.base, sc.path);
    const moelab::noisy::Model m = moelab::noisy::parse_model(view);
    std::FILE* f = std::fopen(argv[2], "w");
    if (f == nullptr) throw std::runtime_error(std::string("cannot write ") + argv[2]);
    std::fprintf(f, "# model instance of %s (study %s), %s\n", sc.path.c_str(), sc.study.c_str(), moelab::tool_provenance().c_str());
    std::fprintf(f, "k %d\nsigma2 %.17g\np", m.k(), m.sigma2);
    for (double p : m.p) std::fprintf(f, " %.17g", p);
    std::fprintf(f, "\n");
    for (int i = 0; i < m.k(); ++i) {
      const auto& S = m.sigma[static_cast<std::size_t>(i)];
      const auto& b = m.beta_star[static_cast<std::size_t>(i)];
      std::fprintf(f, "block %d %d\nsigma", i, m.block_size(i));
      for (Eigen::Index r = 0; r < S.rows(); ++r)
        for (Eigen::Index c = 0; c < S.cols(); ++c) std::fprintf(f, " %.17g", S(r, c));
      std::fprintf(f, "\nbeta");
      for (Eigen::Index r = 0; r < b.size(); ++r) std::fprintf(f, " %.17g", b(r));
      std::fprintf(f, "\n");
    }
    if (std::fclose(f) != 0) throw std::runtime_error(std::string("cannot write ") + argv[2]);
    std::printf("bench_noisy_model: %s: k = %d, d = %d -> %s\n", sc.path.c_str(), m.k(), m.d(), argv[2]);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_noisy_model: %s\n", e.what());
    return 2;
  }
}
