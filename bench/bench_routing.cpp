// bench_routing: moelab's side of the routing benchmark (bench/routing_side_by_side.sh runs it next to
// the NumPy baseline bench/numpy_routing.py; bench/RESULTS.md records the numbers).
//
// Workload: the region-mass Monte-Carlo of the granularity paper (Lemma 3.2) for one routing matrix
// R (m x d, iid N(0, 1), routing::gaussian_routing_vectors(m, d, seed, 0)): draw `points` inputs x ~
// N(0, I_d / d), scores R x, top-k set, its rank in the combinatorial number system, a histogram of
// ranks (dense when C(m, k) <= 2^22, hashed otherwise). Paths (routing::ScorePath):
//   full      : x in R^d and the GEMM R X over batches of 256 points (the workload as stated);
//   projected : scores drawn directly as L z, L L' = R R', z ~ N(0, I_m) (same law of the regions, m <= d);
//   cuda-full, cuda-projected: the same two on the CUDA device (routing::region_histogram_cuda; the
//               same points, so the same counts up to rounding ties), where a device exists.
// Points are split over `threads` (region_histogram(parallel = true); counts identical for any thread
// count). Timed `reps` times over the same points; median reported. Also: per-step times on one
// thread (draw, GEMM, top-k + rank, histogram), the GEMM rate of Eigen on the same shapes and on a
// 2000 x 2000 product (the FLOP floor), and the statistics both programs must agree on, written to
// `--out DIR` (R as raw little-endian doubles, row-major, for the NumPy script to read).
//
//   bench_routing [--threads T] [--reps R] [--points N] [--seed S] [--shapes 16,8,256:256,8,256]
//                 [--paths full,projected,cuda-full,cuda-projected] [--out DIR]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <Eigen/Dense>

#include "bench_common.hpp"

#include "moelab/core/backend.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/core/version.hpp"
#include "moelab/routing/region_masses.hpp"
#include "moelab/routing/subset_rank.hpp"

namespace {

namespace rt = moelab::routing;
using moelab::bench::Clock;
using moelab::bench::median;
using moelab::bench::seconds_since;

struct Shape {
  int m, k, d;
};

struct Options {
  int threads = 0;
  int reps = 3;
  std::uint64_t points = 1000000;
  std::uint64_t seed = 1;
  std::vector<Shape> shapes;        // from --shapes
  std::vector<std::string> paths;   // from --paths
  std::string out = "";
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, sep);)
    if (!item.empty()) out.push_back(item);
  return out;
}

void add_options(CLI::App& app, Options& o, std::string& shapes, std::string& paths) {
  app.add_option("--threads", o.threads, "threads (0: OpenMP default)")->check(CLI::NonNegativeNumber);
  app.add_option("--reps", o.reps, "timed repetitions (median reported)")->check(CLI::PositiveNumber);
  app.add_option("--points", o.points, "points per repetition")->check(CLI::Range(std::uint64_t{2}, ~std::uint64_t{0}));
  app.add_option("--seed", o.seed, "seed of R and of the points");
  app.add_option("--shapes", shapes, "m,k,d shapes separated by ':'");
  app.add_option("--paths", paths, "comma separated: full, projected (CPU), cuda-full, cuda-projected (device)");
  app.add_option("--out", o.out, "folder for R and the agreement statistics");
}

void finish_options(Options& o, const std::string& shapes, const std::string& paths) {
  o.paths = split(paths, ',');
  for (const auto& p : o.paths)
    if (p != "full" && p != "projected" && p != "cuda-full" && p != "cuda-projected")
      throw std::invalid_argument("--paths: full, projected, cuda-full, cuda-projected; got " + p);
  for (const auto& p : o.paths)
    if (p.rfind("cuda-", 0) == 0 && !moelab::cuda_backend_available())
      throw std::invalid_argument("--paths " + p + ": no CUDA device (or built without CUDA)");
  o.shapes.clear();
  for (const auto& s : split(shapes, ':')) {
    const auto f = split(s, ',');
    if (f.size() != 3) throw std::invalid_argument("--shapes: a shape is m,k,d, got " + s);
    const Shape sh{std::stoi(f[0]), std::stoi(f[1]), std::stoi(f[2])};
    if (sh.k < 1 || sh.k >= sh.m || sh.d < 1 || !rt::binomial_fits(sh.m, sh.k))
      throw std::invalid_argument("--shapes: need 1 <= k < m, d >= 1 and C(m, k) < 2^64, got " + s);
    o.shapes.push_back(sh);
  }
}

void run_shape(const Options& o, const Shape& sh) {
  const Eigen::MatrixXd R = rt::gaussian_routing_vectors(sh.m, sh.d, o.seed, 0);
  const rt::SubsetRanker ranker(sh.m, sh.k);
  const std::uint64_t C = ranker.count();
  std::printf("# shape m %d k %d d %d: C(m,k) = %llu regions (%s histogram), %llu points, seed %llu\n", sh.m, sh.k, sh.d,
              static_cast<unsigned long long>(C), C <= rt::RegionHistogram::kDenseLimit ? "dense" : "hashed",
              static_cast<unsigned long long>(o.points), static_cast<unsigned long long>(o.seed));
  if (!o.out.empty()) {
    std::ofstream f(o.out + "/R_" + std::to_string(sh.m) + "_" + std::to_string(sh.d) + ".bin", std::ios::binary);
    const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> Rr = R;
    f.write(reinterpret_cast<const char*>(Rr.data()), static_cast<std::streamsize>(sizeof(double) * Rr.size()));
  }
  for (const auto& path_name : o.paths) {
    const bool projected = path_name == "projected" || path_name == "cuda-projected";
    const bool cuda = path_name.rfind("cuda-", 0) == 0;
    if (projected && sh.m > sh.d) continue;
    const rt::Router router(R, sh.k, projected ? rt::ScorePath::projected : rt::ScorePath::full);
    std::vector<double> secs;
    rt::RegionHistogram hist(C);
    for (int r = 0; r < o.reps; ++r) {
      const auto t0 = Clock::now();
      hist = cuda ? rt::region_histogram_cuda(router, rt::InputLaw::gaussian, o.points, o.seed, 0)
                  : rt::region_histogram(router, rt::InputLaw::gaussian, o.points, o.seed, 0, true);
      secs.push_back(seconds_since(t0));
    }
    const double med = median(secs);
    const rt::RegionMassSummary s = rt::summarize_regions(hist);
    std::printf("routing m %d k %d d %d path %s threads %d seconds_median %.4f seconds_best %.4f samples_per_second %.4g "
                "occupied %llu collisions %.0f normalized_second_moment %.6f\n",
                sh.m, sh.k, sh.d, path_name.c_str(), moelab::num_threads(), med, *std::min_element(secs.begin(), secs.end()),
                static_cast<double>(o.points) / med, static_cast<unsigned long long>(s.occupied), hist.pair_collisions(),
                s.normalized_second_moment);
    std::fflush(stdout);
    if (!o.out.empty()) {
      // Expert activation counts (how often each expert is in the top k) and, for a dense histogram,
      // every region's count: what the side-by-side script compares with NumPy's.
      std::vector<std::uint64_t> act(static_cast<std::size_t>(sh.m), 0);
      std::vector<int> members(static_cast<std::size_t>(sh.k));
      for (const auto& [rank, count] : hist.sorted_entries()) {
        ranker.unrank(rank, members);
        for (int j : members) act[static_cast<std::size_t>(j)] += count;
      }
      const std::string stem = o.out + "/moelab_" + std::to_string(sh.m) + "_" + std::to_string(sh.k) + "_" + std::to_string(sh.d) + "_" + path_name;
      std::ofstream a(stem + "_activation.txt");
      for (auto c : act) a << c << "\n";
      if (hist.dense()) {
        std::ofstream h(stem + "_regions.txt");
        for (std::uint64_t r = 0; r < C; ++r) h << hist.count(r) << "\n";
      }
    }
  }
  // Steps on one thread, full path, over 100k points: the draw, the GEMM, top-k + rank, the histogram.
  {
    constexpr int batch = 256;
    const std::uint64_t n = 100 * 1024;
    Eigen::MatrixXd P(sh.d, batch), S(sh.m, batch);
    std::vector<int> idx(static_cast<std::size_t>(sh.k));
    std::vector<double> work(idx.size());
    std::vector<std::uint64_t> ranks(batch);
    rt::RegionHistogram h(C);
    double t_draw = 0, t_gemm = 0, t_topk = 0, t_hist = 0;
    for (std::uint64_t first = 0; first < n; first += batch) {
      auto t0 = Clock::now();
      rt::draw_points(rt::InputLaw::gaussian, o.seed, 0, first, P);
      t_draw += seconds_since(t0);
      t0 = Clock::now();
      S.noalias() = R * P;
      t_gemm += seconds_since(t0);
      t0 = Clock::now();
      for (int c = 0; c < batch; ++c) {
        rt::top_k_indices(S.col(c).data(), sh.m, sh.k, idx.data(), work.data());
        ranks[static_cast<std::size_t>(c)] = ranker.rank(idx);
      }
      t_topk += seconds_since(t0);
      t0 = Clock::now();
      for (auto r : ranks) h.add(r);
      t_hist += seconds_since(t0);
    }
    const double us = 1e6 / static_cast<double>(n);
    std::printf("routing_steps m %d k %d d %d draw_us %.4f gemm_us %.4f topk_rank_us %.4f histogram_us %.4f gemm_gflops %.2f\n", sh.m,
                sh.k, sh.d, t_draw * us, t_gemm * us, t_topk * us, t_hist * us, 2.0 * sh.m * sh.d * n / t_gemm / 1e9);
  }
  const double shape_rate = moelab::bench::gemm_rate<double>(sh.m, sh.d, 256, 0.3);
  std::printf("routing_gemm m %d d %d batch 256 gflops_one_thread %.2f flops_per_sample %d\n", sh.m, sh.d, shape_rate, 2 * sh.m * sh.d);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"moelab's side of the routing benchmark (bench/routing_side_by_side.sh)", "bench_routing"};
  Options o;
  std::string shapes = "16,8,256:256,8,256", paths = "full,projected";
  add_options(app, o, shapes, paths);
  CLI11_PARSE(app, argc, argv);
  try {
    finish_options(o, shapes, paths);
    if (o.threads > 0) moelab::set_num_threads(o.threads);
    std::printf("# moelab %s, threads %d (points split over threads; Eigen single-threaded)\n", moelab::kVersion, moelab::num_threads());
    const auto t0 = Clock::now();
    for (const auto& s : o.shapes) run_shape(o, s);
    std::printf("gemm_peak n 2000 gflops_one_thread %.2f\n", moelab::bench::gemm_rate<double>(2000, 2000, 2000, 0.3));
    std::printf("moelab_total_seconds %.3f\n", seconds_since(t0));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_routing: %s\n", e.what());
    return 1;
  }
  return 0;
}
