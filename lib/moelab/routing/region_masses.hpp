// Routing regions of linear top-k routing and their masses (granularity paper, Eq. 2.1, Lemma 3.2,
// Lemmas A.5-A.7): for routing vectors r_1..r_m in R^d,
//     U_S = {x : <x, r_i> > <x, r_j> for all i in S, j not in S},   S a k-subset of [m],
// and mu(U_S) for a rotation-invariant law mu of x. The Monte-Carlo draws points x, computes the
// scores R x (a GEMM over a batch), takes the top-k set of each column, ranks it (subset_rank.hpp)
// and counts ranks in a histogram (dense when C(m, k) is small, hashed otherwise).
//
// Random numbers (docs/conventions.md): routing draw t (one matrix R) is RandomStream(seed,
// routing_vectors, t); its points come from RandomStream(seed, routing_points, t * 2^24 + i / 2^16)
// (2^16 points per stream, so a draw may have up to 2^40 points and a stream never runs past the
// 2^32 Philox blocks it can address). Point i's coordinates are normals (i mod 2^16) s .. (i mod 2^16) s +
// dim - 1 of its stream, s = dim rounded up to even plus 2 (the last block of a slot gives the ball's
// radius uniform), computed in bulk by batched_normals.hpp (equal to RandomStream::normal to 2e-14).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "moelab/routing/point_routing.hpp"  // kPointsPerStream, the per-point core shared with CUDA
#include "moelab/routing/subset_rank.hpp"

namespace moelab::routing {

/// The rotation-invariant input laws of the paper (Thms 3.4, 3.6): N(0, I_d / d) or Unif[B_d].
enum class InputLaw { gaussian, ball };
InputLaw input_law_from_name(const std::string& name);  // "gaussian" | "ball"
const char* input_law_name(InputLaw law);
std::vector<std::string> input_law_names();

/// m x d routing vectors with iid N(0, 1) entries (Lemma 3.2, proof: r_1..r_m iid N(0, I_d)); row j
/// is normals j d .. j d + d - 1 of RandomStream(seed, routing_vectors, draw).
Eigen::MatrixXd gaussian_routing_vectors(int m, int d, std::uint64_t seed, std::uint64_t draw);

/// Points first .. first + out.cols() - 1 of routing draw `draw`, one per column of `out` (d rows):
/// N(0, I_d / d), or Unif[B_d] built as g / |g| * U^(1/d) from the same normals g (so both laws
/// give every point the same direction, and therefore the same routing region: the U_S are cones).
void draw_points(InputLaw law, std::uint64_t seed, std::uint64_t draw, std::uint64_t first, Eigen::Ref<Eigen::MatrixXd> out);

/// Indices of the k largest of scores[0..m), written ascending to idx[0..k) (work: k doubles).
/// Ties (probability 0 for continuous scores) go to the lower index.
void top_k_indices(const double* scores, int m, int k, int* idx, double* work);

/// Counts per region rank. Dense (a vector of C(m, k) counters) when C(m, k) <= dense_limit, else
/// an open-addressing hash table of the occupied ranks, or (from_sorted_runs: the device's hashed
/// path) the ascending (rank, count) runs themselves, which every accessor reads directly and the
/// first add() or merge() turns into the hash table. Counts are integers, so merging per-thread
/// histograms in any order gives identical results, in every representation.
class RegionHistogram {
 public:
  static constexpr std::uint64_t kDenseLimit = std::uint64_t{1} << 22;  // 16 MiB of 32-bit counters
  explicit RegionHistogram(std::uint64_t regions, std::uint64_t dense_limit = kDenseLimit);
  /// The histogram of `runs` ((rank, count), ranks strictly ascending, counts >= 1, ranks < regions):
  /// no hashing (with every point in its own region, inserting 2e7 runs into the hash table cost
  /// seconds, the whole of the device's hashed path on an H200). Dense when regions <= dense_limit.
  static RegionHistogram from_sorted_runs(std::uint64_t regions, std::vector<std::pair<std::uint64_t, std::uint64_t>> runs,
                                          std::uint64_t dense_limit = kDenseLimit);
  bool dense() const { return dense_; }
  std::uint64_t regions() const { return regions_; }
  void add(std::uint64_t region, std::uint64_t count = 1);
  void merge(const RegionHistogram& other);
  std::uint64_t total() const { return total_; }
  std::uint64_t count(std::uint64_t region) const;
  /// Regions with a positive count.
  std::uint64_t occupied() const;
  /// sum_S c_S (c_S - 1): ordered pairs of distinct points in the same region.
  double pair_collisions() const;
  /// Regions with count >= threshold (threshold >= 1).
  std::uint64_t regions_at_least(std::uint64_t threshold) const;
  /// (rank, count) of every occupied region, ascending in rank.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> sorted_entries() const;

 private:
  void grow();
  void hash_runs();  // sorted runs -> hash table (before the first add / merge)
  std::uint64_t regions_, total_ = 0;
  bool dense_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> runs_;  // the sorted-runs representation
  bool sorted_ = false;
  std::vector<std::uint32_t> dense_counts_;
  std::vector<std::uint64_t> keys_, values_;  // hashed: empty key = ~0
  std::uint64_t used_ = 0;
};

/// How the scores R x of a point are produced.
///  full:      draw x in R^d (draw_points), scores = R x by a GEMM over a batch of points;
///  projected: draw z ~ N(0, I_m) and set scores = L z with L L' = R R' (Cholesky). Exact in law:
///             R x ~ N(0, R R' / d) for Gaussian x, and the region of x depends only on its
///             direction, which every rotation-invariant law draws uniformly. Needs m <= d; m/d of
///             the normals and (m/d)^2 of the flops of `full`.
///  automatic: projected when m < d, else full.
enum class ScorePath { full, projected, automatic };

/// Routes points [first, first + count) of draw `draw` with routing vectors R (m x d) and top-k,
/// adding their region ranks to `hist`. `law` matters only for the full path.
class Router {
 public:
  Router(const Eigen::MatrixXd& R, int k, ScorePath path);
  int m() const { return m_; }
  int d() const { return d_; }
  int k() const { return ranker_.k(); }
  bool projected() const { return projected_; }
  const SubsetRanker& ranker() const { return ranker_; }
  /// Region ranks of the points, in order (out.size() = count).
  void route(InputLaw law, std::uint64_t seed, std::uint64_t draw, std::uint64_t first, std::span<std::uint64_t> out) const;
  /// Same, counted into `hist`.
  void count(InputLaw law, std::uint64_t seed, std::uint64_t draw, std::uint64_t first, std::uint64_t count,
             RegionHistogram& hist) const;
  /// Region rank of one given point x (length d).
  std::uint64_t region_of(const Eigen::VectorXd& x) const;
  /// The matrix the scores are computed with: R (m x d) on the full path, the lower Cholesky factor
  /// L of R R' (m x m) on the projected path.
  const Eigen::MatrixXd& score_matrix() const { return R_; }

 private:
  template <class Sink>
  void run(InputLaw law, std::uint64_t seed, std::uint64_t draw, std::uint64_t first, std::uint64_t count, Sink&& sink) const;
  int m_, d_;
  bool projected_;
  Eigen::MatrixXd R_;  // m x d (full) or L, m x m (projected)
  SubsetRanker ranker_;
};

/// Histogram of `points` points of draw `draw`; `parallel` splits the points over the threads
/// (shard histograms merged in order: identical counts for any thread count).
RegionHistogram region_histogram(const Router& router, InputLaw law, std::uint64_t points, std::uint64_t seed,
                                 std::uint64_t draw, bool parallel);

/// The CUDA sibling of region_histogram and Router::route is make_region_mass_sampler(Backend::cuda)
/// (region_mass_sampler.hpp), whose device context lives across draws. These two one-off forms
/// create a context for one call (bench/bench_routing.cpp); they throw moelab::Error when built
/// without CUDA or k > kMaxDeviceTopK.
RegionHistogram region_histogram_cuda(const Router& router, InputLaw law, std::uint64_t points, std::uint64_t seed,
                                      std::uint64_t draw);
void route_cuda(const Router& router, InputLaw law, std::uint64_t seed, std::uint64_t draw, std::uint64_t first,
                std::span<std::uint64_t> out);

/// What one routing draw says about its region masses mu(U_S), estimated from n points.
struct RegionMassSummary {
  std::uint64_t regions = 0;        // C(m, k)
  std::uint64_t points = 0;         // n
  std::uint64_t occupied = 0;       // regions hit at least once
  double first_region_mass = 0.0;   // mu_hat(U_S0), S0 = {0, ..., k-1} (rank 0): unbiased for mu(U_S0)
  double collision = 0.0;           // sum_S c_S (c_S - 1) / (n (n - 1)): unbiased for sum_S mu(U_S)^2
  double normalized_second_moment = 0.0;  // C * collision; E over draws = C^2 E mu(U_S)^2 (Lemma A.5)
  double balanced_fraction = 0.0;   // #{S : mu_hat(U_S) >= 1 / (2 C)} / C (Lemma 3.2 / A.6)
  double max_mass = 0.0;            // max_S mu_hat(U_S)
};
RegionMassSummary summarize_regions(const RegionHistogram& hist);

}  // namespace moelab::routing
