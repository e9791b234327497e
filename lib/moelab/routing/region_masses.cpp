#include "moelab/routing/region_masses.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "moelab/core/distributions.hpp"
#include "moelab/core/error.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/linalg/decompositions.hpp"
#include "moelab/routing/batched_normals.hpp"
#include "moelab/routing/point_routing.hpp"

namespace moelab::routing {

// 128-bit unsigned (a GCC/Clang extension; __extension__ keeps -Wpedantic quiet).
__extension__ using u128 = unsigned __int128;

InputLaw input_law_from_name(const std::string& name) {
  if (name == "gaussian") return InputLaw::gaussian;
  if (name == "ball") return InputLaw::ball;
  MOELAB_EXPECT(false, "unknown input law (gaussian | ball)");
  return InputLaw::gaussian;
}
const char* input_law_name(InputLaw law) { return law == InputLaw::gaussian ? "gaussian" : "ball"; }
std::vector<std::string> input_law_names() { return {"gaussian", "ball"}; }

Eigen::MatrixXd gaussian_routing_vectors(int m, int d, std::uint64_t seed, std::uint64_t draw) {
  MOELAB_EXPECT(m >= 1 && d >= 1, "gaussian_routing_vectors needs m, d >= 1");
  // Row j = normals j d .. j d + d - 1: fill the transpose (column j contiguous) and transpose.
  Eigen::MatrixXd Rt(d, m);
  RandomStream(seed, StreamTag::routing_vectors, draw).fill_normal(0, static_cast<std::uint64_t>(m) * static_cast<std::uint64_t>(d), Rt.data());
  return Rt.transpose();
}

namespace {

/// Raw standard normals of points first .. first + cols - 1 (dim per point) into out (dim x cols):
/// point i's normals are (i mod 2^16) stride .. + dim - 1 of its stream, i.e. the consecutive points
/// of one stream occupy consecutive Philox blocks (their uniform slots included), generated in bulk.
void draw_normals(int dim, std::uint64_t seed, std::uint64_t draw, std::uint64_t first, Eigen::Ref<Eigen::MatrixXd> out) {
  const std::uint64_t stride = point_stride(dim), cols = static_cast<std::uint64_t>(out.cols());
  thread_local std::vector<double> scratch;
  for (std::uint64_t c = 0; c < cols;) {
    const std::uint64_t i = first + c;
    const std::uint64_t run = std::min(cols - c, kPointsPerStream - i % kPointsPerStream);  // points left in this stream
    scratch.resize(run * stride);
    fill_normal_blocks(point_stream(seed, draw, i).address(), (i % kPointsPerStream) * stride / 2, run * stride / 2, scratch.data());
    for (std::uint64_t r = 0; r < run; ++r)
      std::copy_n(scratch.data() + r * stride, dim, out.col(static_cast<Eigen::Index>(c + r)).data());
    c += run;
  }
}

std::uint64_t mix64(std::uint64_t z) {  // splitmix64 finaliser
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
constexpr int kBatch = 256;  // points per GEMM: 256 x d doubles stay in L2 for d <= 512

}  // namespace

void draw_points(InputLaw law, std::uint64_t seed, std::uint64_t draw, std::uint64_t first, Eigen::Ref<Eigen::MatrixXd> out) {
  const int d = static_cast<int>(out.rows());
  MOELAB_EXPECT(d >= 1 && (out.innerStride() == 1), "draw_points needs d >= 1 and contiguous columns");
  MOELAB_EXPECT(point_dim_supported(d), "draw_points: d above kMaxPointDim = 131070 would wrap the 32-bit Philox block counter");
  draw_normals(d, seed, draw, first, out);
  if (law == InputLaw::gaussian) {
    out *= 1.0 / std::sqrt(static_cast<double>(d));  // N(0, I_d / d)
    return;
  }
  for (Eigen::Index c = 0; c < out.cols(); ++c) {
    const std::uint64_t i = first + static_cast<std::uint64_t>(c);
    const double u = point_stream(seed, draw, i).uniform(point_uniform_index(d, i));
    // Unif[B_d]: uniform direction g/|g| times radius U^(1/d) (P(|x| <= r) = r^d).
    out.col(c) *= std::pow(u, 1.0 / d) / out.col(c).norm();
  }
}

void top_k_indices(const double* s, int m, int k, int* idx, double* val) { top_k_strided(s, 1, m, k, idx, val); }

// ---- RegionHistogram ----

RegionHistogram::RegionHistogram(std::uint64_t regions, std::uint64_t dense_limit)
    : regions_(regions), dense_(regions <= dense_limit) {
  MOELAB_EXPECT(regions >= 1, "RegionHistogram needs at least one region");
  if (dense_) {
    dense_counts_.assign(regions, 0);
  } else {
    keys_.assign(1024, kEmpty);
    values_.assign(1024, 0);
  }
}

RegionHistogram RegionHistogram::from_sorted_runs(std::uint64_t regions, std::vector<std::pair<std::uint64_t, std::uint64_t>> runs,
                                                  std::uint64_t dense_limit) {
  RegionHistogram h(regions, dense_limit);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    MOELAB_EXPECT(runs[i].first < regions && runs[i].second >= 1 && (i == 0 || runs[i - 1].first < runs[i].first),
                  "RegionHistogram::from_sorted_runs: runs must have ascending ranks below the region count and positive counts");
    h.total_ += runs[i].second;
  }
  if (h.dense_) {
    for (const auto& [r, c] : runs) h.dense_counts_[r] = static_cast<std::uint32_t>(c);
    return h;
  }
  h.keys_.clear(), h.values_.clear();
  h.used_ = runs.size();
  h.runs_ = std::move(runs);
  h.sorted_ = true;
  return h;
}

void RegionHistogram::hash_runs() {
  if (!sorted_) return;
  std::size_t size = 1024;
  while (size < 2 * runs_.size() + 2) size *= 2;  // load factor <= 1/2 from the start: no regrowth
  keys_.assign(size, kEmpty), values_.assign(size, 0);
  const std::uint64_t mask = size - 1;
  for (const auto& [r, c] : runs_) {
    std::uint64_t h = mix64(r) & mask;
    while (keys_[h] != kEmpty) h = (h + 1) & mask;
    keys_[h] = r, values_[h] = c;
  }
  used_ = runs_.size();
  runs_.clear();
  runs_.shrink_to_fit();
  sorted_ = false;
}

void RegionHistogram::grow() {
  std::vector<std::uint64_t> keys(keys_.size() * 2, kEmpty), values(keys_.size() * 2, 0);
  const std::uint64_t mask = keys.size() - 1;
  for (std::size_t s = 0; s < keys_.size(); ++s) {
    if (keys_[s] == kEmpty) continue;
    std::uint64_t h = mix64(keys_[s]) & mask;
    while (keys[h] != kEmpty) h = (h + 1) & mask;
    keys[h] = keys_[s];
    values[h] = values_[s];
  }
  keys_.swap(keys);
  values_.swap(values);
}

void RegionHistogram::add(std::uint64_t region, std::uint64_t c) {
  hash_runs();
  total_ += c;
  if (dense_) {
    dense_counts_[region] += static_cast<std::uint32_t>(c);
    return;
  }
  const std::uint64_t mask = keys_.size() - 1;
  std::uint64_t h = mix64(region) & mask;
  while (keys_[h] != region && keys_[h] != kEmpty) h = (h + 1) & mask;
  if (keys_[h] == kEmpty) {
    keys_[h] = region;
    values_[h] = c;
    if (2 * ++used_ > keys_.size()) grow();  // load factor <= 1/2: short probe sequences
    return;
  }
  values_[h] += c;
}

void RegionHistogram::merge(const RegionHistogram& o) {
  MOELAB_EXPECT(o.regions_ == regions_ && o.dense_ == dense_, "merging histograms of different shapes");
  if (dense_) {
    for (std::size_t s = 0; s < dense_counts_.size(); ++s) dense_counts_[s] += o.dense_counts_[s];
    total_ += o.total_;
    return;
  }
  hash_runs();
  if (o.sorted_) {
    for (const auto& [r, c] : o.runs_) add(r, c);
    return;
  }
  for (std::size_t s = 0; s < o.keys_.size(); ++s)
    if (o.keys_[s] != kEmpty) add(o.keys_[s], o.values_[s]);
}

std::uint64_t RegionHistogram::count(std::uint64_t region) const {
  if (dense_) return region < regions_ ? dense_counts_[region] : 0;
  if (sorted_) {
    const auto it = std::lower_bound(runs_.begin(), runs_.end(), region, [](const auto& e, std::uint64_t r) { return e.first < r; });
    return it != runs_.end() && it->first == region ? it->second : 0;
  }
  const std::uint64_t mask = keys_.size() - 1;
  std::uint64_t h = mix64(region) & mask;
  while (keys_[h] != kEmpty) {
    if (keys_[h] == region) return values_[h];
    h = (h + 1) & mask;
  }
  return 0;
}

std::uint64_t RegionHistogram::occupied() const {
  if (!dense_) return used_;
  return static_cast<std::uint64_t>(std::count_if(dense_counts_.begin(), dense_counts_.end(), [](std::uint32_t c) { return c > 0; }));
}

double RegionHistogram::pair_collisions() const {
  u128 s = 0;
  const auto acc = [&](std::uint64_t c) { s += static_cast<u128>(c) * (c > 0 ? c - 1 : 0); };
  if (dense_)
    for (std::uint32_t c : dense_counts_) acc(c);
  else if (sorted_)
    for (const auto& e : runs_) acc(e.second);
  else
    for (std::size_t i = 0; i < keys_.size(); ++i)
      if (keys_[i] != kEmpty) acc(values_[i]);
  return static_cast<double>(s);
}

std::uint64_t RegionHistogram::regions_at_least(std::uint64_t threshold) const {
  MOELAB_EXPECT(threshold >= 1, "regions_at_least needs threshold >= 1");
  std::uint64_t n = 0;
  if (dense_)
    for (std::uint32_t c : dense_counts_) n += c >= threshold;
  else if (sorted_)
    for (const auto& e : runs_) n += e.second >= threshold;
  else
    for (std::size_t i = 0; i < keys_.size(); ++i) n += keys_[i] != kEmpty && values_[i] >= threshold;
  return n;
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> RegionHistogram::sorted_entries() const {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  if (dense_) {
    for (std::size_t s = 0; s < dense_counts_.size(); ++s)
      if (dense_counts_[s] > 0) out.emplace_back(s, dense_counts_[s]);
    return out;
  }
  if (sorted_) return runs_;
  for (std::size_t i = 0; i < keys_.size(); ++i)
    if (keys_[i] != kEmpty) out.emplace_back(keys_[i], values_[i]);
  std::sort(out.begin(), out.end());
  return out;
}

// ---- Router ----

Router::Router(const Eigen::MatrixXd& R, int k, ScorePath path)
    : m_(static_cast<int>(R.rows())), d_(static_cast<int>(R.cols())), projected_(false), ranker_(static_cast<int>(R.rows()), k) {
  MOELAB_EXPECT(m_ >= 1 && d_ >= 1, "Router needs a non-empty routing matrix");
  projected_ = path == ScorePath::projected || (path == ScorePath::automatic && m_ < d_);
  if (!projected_) {
    R_ = R;
    return;
  }
  MOELAB_EXPECT(m_ <= d_, "the projected score path needs m <= d (R R' must be nonsingular)");
  const Eigen::MatrixXd gram = R * R.transpose();
  const Eigen::LLT<Eigen::MatrixXd> llt(gram);
  MOELAB_EXPECT(llt.info() == Eigen::Success, "R R' is not positive definite (routing vectors linearly dependent)");
  R_ = llt.matrixL();
}

template <class Sink>
void Router::run(InputLaw law, std::uint64_t seed, std::uint64_t draw, std::uint64_t first, std::uint64_t count, Sink&& sink) const {
  const int dim = projected_ ? m_ : d_;
  const int k = ranker_.k();
  Eigen::MatrixXd P(dim, kBatch), S(m_, kBatch);
  std::vector<int> idx(static_cast<std::size_t>(k));
  std::vector<double> work(static_cast<std::size_t>(k));
  for (std::uint64_t done = 0; done < count;) {
    const auto b = static_cast<Eigen::Index>(std::min<std::uint64_t>(kBatch, count - done));
    if (projected_) {
      draw_normals(dim, seed, draw, first + done, P.leftCols(b));
      S.leftCols(b).noalias() = R_.triangularView<Eigen::Lower>() * P.leftCols(b);
    } else {
      draw_points(law, seed, draw, first + done, P.leftCols(b));
      S.leftCols(b).noalias() = R_ * P.leftCols(b);
    }
    for (Eigen::Index c = 0; c < b; ++c) {
      top_k_indices(S.col(c).data(), m_, k, idx.data(), work.data());
      sink(done + static_cast<std::uint64_t>(c), ranker_.rank(idx));
    }
    done += static_cast<std::uint64_t>(b);
  }
}

void Router::route(InputLaw law, std::uint64_t seed, std::uint64_t draw, std::uint64_t first, std::span<std::uint64_t> out) const {
  run(law, seed, draw, first, out.size(), [&](std::uint64_t i, std::uint64_t r) { out[i] = r; });
}

void Router::count(InputLaw law, std::uint64_t seed, std::uint64_t draw, std::uint64_t first, std::uint64_t n,
                   RegionHistogram& hist) const {
  run(law, seed, draw, first, n, [&](std::uint64_t, std::uint64_t r) { hist.add(r); });
}

std::uint64_t Router::region_of(const Eigen::VectorXd& x) const {
  MOELAB_EXPECT(!projected_ && x.size() == d_, "region_of needs the full score path and a point of length d");
  const Eigen::VectorXd s = R_ * x;
  std::vector<int> idx(static_cast<std::size_t>(ranker_.k()));
  std::vector<double> work(idx.size());
  top_k_indices(s.data(), m_, ranker_.k(), idx.data(), work.data());
  return ranker_.rank(idx);
}

RegionHistogram region_histogram(const Router& router, InputLaw law, std::uint64_t points, std::uint64_t seed,
                                 std::uint64_t draw, bool parallel) {
  MOELAB_EXPECT(points < (std::uint64_t{1} << 32), "region_histogram: at most 2^32 - 1 points per draw (32-bit counters)");
  const std::uint64_t C = router.ranker().count();
  const std::size_t shards = parallel ? static_cast<std::size_t>(std::max(1, num_threads())) : 1;
  if (shards == 1) {
    RegionHistogram h(C);
    router.count(law, seed, draw, 0, points, h);
    return h;
  }
  // Contiguous point ranges; a point's region depends only on its index, and the merge adds
  // integers: the counts do not depend on the number of shards.
  std::vector<RegionHistogram> parts(shards, RegionHistogram(C));
  parallel_for(shards, [&](std::size_t s) {
    const std::uint64_t lo = points * s / shards, hi = points * (s + 1) / shards;
    router.count(law, seed, draw, lo, hi - lo, parts[s]);
  });
  for (std::size_t s = 1; s < shards; ++s) parts[0].merge(parts[s]);
  return std::move(parts[0]);
}

RegionMassSummary summarize_regions(const RegionHistogram& h) {
  RegionMassSummary s;
  s.regions = h.regions();
  s.points = h.total();
  MOELAB_EXPECT(s.points >= 2, "summarize_regions needs at least two points");
  const double n = static_cast<double>(s.points), C = static_cast<double>(s.regions);
  s.occupied = h.occupied();
  s.first_region_mass = static_cast<double>(h.count(0)) / n;
  s.collision = h.pair_collisions() / (n * (n - 1.0));
  s.normalized_second_moment = C * s.collision;
  // mu_hat >= 1 / (2C)  <=>  2 C c_S >= n  <=>  c_S >= ceil(n / (2C)).
  const auto threshold = static_cast<std::uint64_t>(std::ceil(n / (2.0 * C)));
  s.balanced_fraction = static_cast<double>(h.regions_at_least(std::max<std::uint64_t>(threshold, 1))) / C;
  std::uint64_t best = 0;
  for (const auto& [r, c] : h.sorted_entries()) best = std::max(best, c);
  s.max_mass = static_cast<double>(best) / n;
  return s;
}

}  // namespace moelab::routing
