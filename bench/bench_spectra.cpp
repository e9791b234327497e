// bench_spectra: moelab's side of the spectra benchmark (bench/spectra_side_by_side.sh runs it next to
// the NumPy baseline bench/numpy_spectra.py, bench/RESULTS.md records the numbers).
//
// Workload 1 (ipn): all M eigenvalues of Sigma Sigma' for one M x N information-plus-noise matrix
//   Sigma = B + W, W iid N(0, sigma2 / N), B with squared singular values sv2 on its first diagonal
//   entries (spectra::info_plus_noise_eigenvalues). One matrix is one Monte-Carlo trial, which moelab
//   computes on one core (single-threaded BLAS inside a trial); `reps` independent trials are timed one
//   after the other (latency), then `threads` trials at once with parallel_map (throughput). Two
//   samplers (ensembles.hpp): the library's default `reduced` (the exact band model: O(M) draws,
//   LAPACK dsbevd) and `entries` (every entry drawn, Gram by OpenBLAS syrk, LAPACK dsyevd).
// Workload 2 (wishart): the largest eigenvalue of `trials` real white Wishart matrices X'X, X n x p iid
//   N(0, 1) (unnormalised, Johnstone's convention), (a) from the full model
//   spectra::sample_covariance_eigenvalues(p, n, {}, 1, gaussian, seed, t), whose eigenvalues are those of
//   (1/n) X'X, times n (default sampler: the Bartlett draw of X'X, p^3/3 flops, LAPACK dsyevd; and with
//   Sampler::entries, every entry of X drawn); (b) from the Dumitriu-Edelman tridiagonal model by Sturm bisection,
//   spectra::laguerre_tridiagonal_largest(p, n, 1, seed, t). Trials run in parallel (parallel_map).
//
// Output: one `key value ...` line per measurement (parsed by the side-by-side script), `#` comments.
//   bench_spectra [--threads T] [--reps R] [--trials K] [--seed S] [--part all|ipn|wishart]
//                 [--M 2000] [--N 4000] [--n 400] [--p 200]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <Eigen/Dense>

#include "bench_common.hpp"

#include "moelab/core/parallel.hpp"
#include "moelab/core/version.hpp"
#include "moelab/linalg/lapack.hpp"
#include "moelab/spectra/ensembles.hpp"
#include "moelab/spectra/info_plus_noise.hpp"
#include "moelab/spectra/tracy_widom.hpp"

namespace {

using moelab::spectra::EntryLaw;
using moelab::bench::Clock;
using moelab::bench::median;
using moelab::bench::seconds_since;

/// CPU seconds of the whole process (all threads) since `c0`: a check on wall times on a shared machine.
double cpu_since(std::clock_t c0) { return static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC; }

struct MeanSd {
  double mean = 0.0, sd = 0.0, se = 0.0;
};
MeanSd mean_sd(const std::vector<double>& v) {
  MeanSd out;
  const double n = static_cast<double>(v.size());
  for (const double x : v) out.mean += x / n;
  if (v.size() > 1) {
    double ss = 0.0;
    for (const double x : v) ss += (x - out.mean) * (x - out.mean);
    out.sd = std::sqrt(ss / (n - 1.0));
    out.se = out.sd / std::sqrt(n);
  }
  return out;
}

struct Options {
  int threads = 0;  // 0: OpenMP default (OMP_NUM_THREADS or all cores)
  int reps = 3;
  int trials = 1000;
  std::uint64_t seed = 1;
  std::string part = "all";
  int M = 2000, N = 4000;  // workload 1
  int n = 400, p = 200;    // workload 2: X is n x p
};

void add_options(CLI::App& app, Options& o) {
  app.add_option("--threads", o.threads, "threads (0: OpenMP default)")->check(CLI::NonNegativeNumber);
  app.add_option("--reps", o.reps, "ipn matrices timed one after the other")->check(CLI::PositiveNumber);
  app.add_option("--trials", o.trials, "Wishart matrices")->check(CLI::Range(2, 1 << 30));
  app.add_option("--seed", o.seed, "seed");
  app.add_option("--part", o.part, "workloads to run")->check(CLI::IsMember({"all", "ipn", "wishart"}));
  app.add_option("--M", o.M, "ipn: rows of Sigma")->check(CLI::Range(3, 1 << 20));
  app.add_option("--N", o.N, "ipn: columns of Sigma (>= M)");
  app.add_option("--n", o.n, "wishart: rows of X (>= p)");
  app.add_option("--p", o.p, "wishart: columns of X")->check(CLI::PositiveNumber);
}

void info_plus_noise(const Options& o) {
  const int M = o.M, N = o.N;
  const double sigma2 = 1.0, c = static_cast<double>(M) / N;
  Eigen::VectorXd sv2(2);
  sv2 << 9.0, 4.0;
  std::printf("# ipn: M %d N %d sigma2 %g sv2 9 4, EntryLaw::gaussian, seed %llu, trials 0..%d\n", M, N, sigma2,
              static_cast<unsigned long long>(o.seed), o.reps - 1);
  // The dense path first (every entry drawn: what NumPy computes), then the library's default.
  {
    std::vector<double> dsecs, dcpu;
    for (int r = 0; r < o.reps; ++r) {
      const auto t0 = Clock::now();
      const std::clock_t c0 = std::clock();
      const Eigen::VectorXd ev = moelab::spectra::info_plus_noise_eigenvalues(
          M, N, sv2, sigma2, EntryLaw::gaussian, o.seed, static_cast<std::uint64_t>(1000 + r),
          moelab::spectra::Sampler::entries);
      dsecs.push_back(seconds_since(t0));
      dcpu.push_back(cpu_since(c0));
      std::printf("ipn_dense_rep %d seconds %.3f l1 %.6f l3 %.6f lmin %.6f\n", r, dsecs.back(), ev(0), ev(2), ev(M - 1));
      std::fflush(stdout);
    }
    std::printf("ipn_dense seconds_median %.3f seconds_best %.3f cpu_median %.3f\n", median(dsecs),
                *std::min_element(dsecs.begin(), dsecs.end()), median(dcpu));
  }
  std::vector<double> secs, cpus, l1, l2, l3, lmin;
  for (int r = 0; r < o.reps; ++r) {
    const auto t0 = Clock::now();
    const std::clock_t c0 = std::clock();
    const Eigen::VectorXd ev = moelab::spectra::info_plus_noise_eigenvalues(M, N, sv2, sigma2, EntryLaw::gaussian,
                                                                            o.seed, static_cast<std::uint64_t>(r));
    secs.push_back(seconds_since(t0));
    cpus.push_back(cpu_since(c0));
    l1.push_back(ev(0));
    l2.push_back(ev(1));
    l3.push_back(ev(2));
    lmin.push_back(ev(M - 1));
    std::printf("ipn_rep %d seconds %.3f l1 %.6f l2 %.6f l3 %.6f lmin %.6f\n", r, secs.back(), ev(0), ev(1), ev(2),
                ev(M - 1));
    std::fflush(stdout);
  }
  std::printf("ipn_seconds_median %.3f\nipn_seconds_best %.3f\nipn_cpu_median %.4f\n", median(secs),
              *std::min_element(secs.begin(), secs.end()), median(cpus));
  const auto print = [](const char* key, const std::vector<double>& v) {
    const MeanSd s = mean_sd(v);
    std::printf("%s_mean %.6f %s_sd %.6f\n", key, s.mean, key, s.sd);
  };
  print("ipn_l1", l1);
  print("ipn_l2", l2);
  print("ipn_l3", l3);
  print("ipn_lmin", lmin);
  std::printf("ipn_limit l1 %.6f l2 %.6f upper_edge %.6f lower_edge %.6f\n",
              moelab::spectra::info_plus_noise_spike_limit(sv2(0), c, sigma2),
              moelab::spectra::info_plus_noise_spike_limit(sv2(1), c, sigma2),
              moelab::spectra::info_plus_noise_bulk_edge(c, sigma2), sigma2 * (1.0 - std::sqrt(c)) * (1.0 - std::sqrt(c)));

  // Where the dense path's time goes (one extra trial, timed by phase with the calls the library makes):
  // the draw (iid_matrix, bulk normals), the Gram matrix (syrk), the eigenvalues (dsyevd).
  {
    auto t0 = Clock::now();
    Eigen::MatrixXd S = moelab::spectra::iid_matrix(M, N, EntryLaw::gaussian, o.seed,
                                                    moelab::StreamTag::design_noise, static_cast<std::uint64_t>(o.reps));
    const double rng_s = seconds_since(t0);
    S *= std::sqrt(sigma2 / N);
    t0 = Clock::now();
    Eigen::MatrixXd G;
    moelab::lapack::gram_lower(S, false, G);
    const double gram_s = seconds_since(t0);
    t0 = Clock::now();
    const Eigen::VectorXd ev = moelab::lapack::symmetric_eigenvalues(G);
    const double eig_s = seconds_since(t0);
    std::printf("ipn_phases rng %.3f gram %.3f eig %.3f (check %.3f; backend %s)\n", rng_s, gram_s, eig_s, ev(M - 1),
                moelab::lapack::backend_name());
  }

  // Throughput: `threads` trials at once, one per core (how Monte-Carlo studies use it).
  const int k = moelab::num_threads();
  if (k > 1) {
    const auto t0 = Clock::now();
    const auto tops = moelab::parallel_map<double>(static_cast<std::size_t>(k), [&](std::size_t i) {
      return moelab::spectra::info_plus_noise_eigenvalues(M, N, sv2, sigma2, EntryLaw::gaussian, o.seed,
                                                          static_cast<std::uint64_t>(o.reps + 1 + i))(0);
    });
    const double s = seconds_since(t0);
    (void)tops;
    std::printf("ipn_throughput matrices %d seconds %.3f seconds_per_matrix %.3f\n", k, s, s / k);
  }
}

void wishart(const Options& o) {
  const int n = o.n, p = o.p, K = o.trials;
  std::printf("# wishart: X %d x %d iid N(0,1), largest eigenvalue of X'X, %d matrices, seed %llu\n", n, p, K,
              static_cast<unsigned long long>(o.seed));
  const auto run = [&](const char* name, auto&& one) {
    std::vector<double> secs, cpus, l1;
    for (int r = 0; r < o.reps; ++r) {  // same trials every repetition: timing only
      const auto t0 = Clock::now();
      const std::clock_t c0 = std::clock();
      l1 = moelab::parallel_map<double>(static_cast<std::size_t>(K),
                                        [&](std::size_t t) { return one(static_cast<std::uint64_t>(t)); });
      secs.push_back(seconds_since(t0));
      cpus.push_back(cpu_since(c0));
    }
    const MeanSd s = mean_sd(l1);
    std::printf("%s seconds_median %.3f seconds_best %.3f l1_mean %.4f l1_se %.4f l1_sd %.4f cpu_median %.3f\n", name,
                median(secs), *std::min_element(secs.begin(), secs.end()), s.mean, s.se, s.sd, median(cpus));
    std::fflush(stdout);
  };
  // (a) Full model: eigenvalues of (1/n) Y Y', Y = X' (p x n); times n gives X'X's.
  run("wishart_full", [&](std::uint64_t t) {
    const Eigen::VectorXd ev =
        moelab::spectra::sample_covariance_eigenvalues(p, n, {}, 1.0, EntryLaw::gaussian, o.seed, t);
    return static_cast<double>(n) * ev(p - 1);
  });
  // (a') Full model with every entry of X drawn (Sampler::entries): the pre-Bartlett work.
  run("wishart_full_entries", [&](std::uint64_t t) {
    const Eigen::VectorXd ev = moelab::spectra::sample_covariance_eigenvalues(
        p, n, {}, 1.0, EntryLaw::gaussian, o.seed, t, moelab::spectra::Sampler::entries);
    return static_cast<double>(n) * ev(p - 1);
  });
  // (b) Dumitriu-Edelman tridiagonal model (beta = 1), Sturm bisection: unnormalised already.
  run("wishart_tridiag",
      [&](std::uint64_t t) { return moelab::spectra::laguerre_tridiagonal_largest(p, n, 1.0, o.seed, t); });
  // Where the every-entry full model's time goes: the draw alone (same matrices, same parallel loop).
  {
    const auto t0 = Clock::now();
    const auto firsts = moelab::parallel_map<double>(static_cast<std::size_t>(K), [&](std::size_t t) {
      return moelab::spectra::iid_matrix(p, n, EntryLaw::gaussian, o.seed, moelab::StreamTag::design_noise,
                                         static_cast<std::uint64_t>(t))(0, 0);
    });
    (void)firsts;
    std::printf("wishart_full_phases draw %.3f\n", seconds_since(t0));
  }
  const auto sc = moelab::spectra::wishart_largest_eigenvalue_scaling(n, p, moelab::spectra::WishartEdge::johnstone_real);
  const auto tw = moelab::spectra::tracy_widom_moments(1);
  std::printf("wishart_tw1 centre %.4f scale %.4f mean %.4f sd %.4f\n", sc.centre, sc.scale,
              sc.centre + sc.scale * tw.mean, sc.scale * std::sqrt(tw.variance));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"moelab's side of the spectra benchmark (bench/spectra_side_by_side.sh)", "bench_spectra"};
  Options o;
  add_options(app, o);
  CLI11_PARSE(app, argc, argv);
  try {
    if (o.N < o.M || o.n < o.p) throw std::invalid_argument("need M <= N and p <= n");
    if (o.threads > 0) moelab::set_num_threads(o.threads);
    std::printf("# moelab %s, threads %d (Eigen single-threaded inside a trial, trials in parallel)\n",
                moelab::kVersion, moelab::num_threads());
    const auto t0 = Clock::now();
    if (o.part != "wishart") info_plus_noise(o);
    if (o.part != "ipn") wishart(o);
    std::printf("moelab_total_seconds %.3f\n", seconds_since(t0));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_spectra: %s\n", e.what());
    return 1;
  }
  return 0;
}
