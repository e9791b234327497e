// The per-point core shared by the CPU and CUDA region-mass paths (lib/moelab/routing/point_routing.hpp),
// tested on the CPU: the point addressing equals what draw_points uses, the strided top-k equals the
// contiguous one and a full sort, rank_sorted equals SubsetRanker::rank, and the device pipeline's data
// layout (points transposed, B x dim; scores St = Pt R' or Zt L', B x m; top-k read with stride B),
// emulated here with Eigen, gives the CPU reference's region of every point. The kernel itself
// (kernels/routing_masses.cu) runs only in tests/gpu/routing_gpu_main.cpp, where a device exists.
#include "moelab/routing/point_routing.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <vector>

#include <catch2/catch.hpp>

#include "moelab/core/distributions.hpp"
#include "moelab/routing/region_masses.hpp"
#include "moelab/routing/subset_rank.hpp"

namespace rt = moelab::routing;
using moelab::RandomStream;
using moelab::StreamTag;

namespace {

/// top_k_rank_fixed at the capacity the device dispatches to for k (routing_masses.cu, top_k()).
std::uint64_t device_top_k_rank(const double* s, long stride, int m, int k, const std::uint64_t* table, std::uint64_t table_stride) {
  switch (rt::top_k_capacity(k)) {
    case 1: return rt::top_k_rank_fixed<1>(s, stride, m, k, table, table_stride);
    case 2: return rt::top_k_rank_fixed<2>(s, stride, m, k, table, table_stride);
    case 4: return rt::top_k_rank_fixed<4>(s, stride, m, k, table, table_stride);
    case 8: return rt::top_k_rank_fixed<8>(s, stride, m, k, table, table_stride);
    case 16: return rt::top_k_rank_fixed<16>(s, stride, m, k, table, table_stride);
    default: return rt::top_k_rank_fixed<32>(s, stride, m, k, table, table_stride);
  }
}

/// The CUDA pipeline of kernels/routing_masses.cu, step by step, in Eigen: region ranks of points
/// first .. first + count - 1 of draw `draw` for the router's score matrix, in device batches of
/// `batch` points (each batch starting at first + done, as routing_ranks_to_host does). Raw normals
/// for every law (the device drops the scaling: it cannot change a rank). When `hist` is given, each
/// rank is also counted into it (the dense path's fused atomics).
std::vector<std::uint64_t> device_layout_ranks(const rt::Router& router, std::uint64_t seed, std::uint64_t draw, std::uint64_t first,
                                               std::uint64_t count, std::uint64_t batch = 1u << 20,
                                               std::vector<std::uint64_t>* hist = nullptr) {
  const Eigen::MatrixXd& A = router.score_matrix();
  const int dim = static_cast<int>(A.cols());
  std::vector<std::uint64_t> ranks;
  ranks.reserve(count);
  for (std::uint64_t done = 0; done < count;) {
    const std::uint64_t B = std::min(batch, count - done), base = first + done;
    Eigen::MatrixXd Pt(static_cast<Eigen::Index>(B), dim);  // points_kernel: one pair of coordinates per thread
    for (std::uint64_t c = 0; c < B; ++c)
      for (int b = 0; 2 * b < dim; ++b) {
        double z0, z1;
        rt::point_normal_pair(seed, draw, dim, base + c, b, z0, z1);
        Pt(static_cast<Eigen::Index>(c), 2 * b) = z0;
        if (2 * b + 1 < dim) Pt(static_cast<Eigen::Index>(c), 2 * b + 1) = z1;
      }
    // cuBLAS DGEMM / DTRMM
    const Eigen::MatrixXd St = router.projected() ? Eigen::MatrixXd(Pt * A.triangularView<Eigen::Lower>().transpose())
                                                  : Eigen::MatrixXd(Pt * A.transpose());
    for (std::uint64_t c = 0; c < B; ++c) {  // top_k_kernel<K>
      const std::uint64_t r = device_top_k_rank(St.data() + c, static_cast<long>(B), router.m(), router.k(),
                                                router.ranker().table().data(), router.ranker().table_stride());
      ranks.push_back(r);
      if (hist) ++(*hist)[r];
    }
    done += B;
  }
  return ranks;
}

std::size_t mismatches(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < a.size(); ++i) n += a[i] != b[i];
  return n;
}

}  // namespace

TEST_CASE("point addressing is the one draw_points uses", "[routing]") {
  const int d = GENERATE(1, 2, 7, 64);
  const std::uint64_t first = GENERATE(std::uint64_t{0}, rt::kPointsPerStream - 3);  // the second spans two streams
  const std::uint64_t seed = 11, draw = 3, n = 6;
  Eigen::MatrixXd X(d, static_cast<Eigen::Index>(n));
  rt::draw_points(rt::InputLaw::gaussian, seed, draw, first, X);
  Eigen::MatrixXd U(d, static_cast<Eigen::Index>(n));
  rt::draw_points(rt::InputLaw::ball, seed, draw, first, U);
  for (std::uint64_t c = 0; c < n; ++c) {
    const std::uint64_t i = first + c;
    Eigen::VectorXd g(d);
    for (int j = 0; j < d; ++j) g(j) = rt::point_stream(seed, draw, i).normal(rt::point_normal_index(d, i, j));
    // draw_points computes the normals in bulk (batched_normals.hpp), equal to RandomStream::normal
    // within 2e-14 (its test); 1e-13 leaves room for the 1/sqrt(d) and the norm.
    CHECK(((g / std::sqrt(static_cast<double>(d))) - X.col(static_cast<Eigen::Index>(c))).cwiseAbs().maxCoeff() < 1e-13);
    // The kernel's pairwise draw gives the same numbers, bit for bit, as the per-coordinate address.
    for (int b = 0; 2 * b < d; ++b) {
      double z0, z1;
      rt::point_normal_pair(seed, draw, d, i, b, z0, z1);
      CHECK(z0 == g(2 * b));
      if (2 * b + 1 < d) CHECK(z1 == g(2 * b + 1));
    }
    const double u = rt::point_stream(seed, draw, i).uniform(rt::point_uniform_index(d, i));
    CHECK(((g * std::pow(u, 1.0 / d) / g.norm()) - U.col(static_cast<Eigen::Index>(c))).cwiseAbs().maxCoeff() < 1e-13);
  }
  // The uniform's slot is past the last normal of the point and before the next point's first.
  CHECK(rt::point_uniform_index(d, 0) >= static_cast<std::uint64_t>(d));
  CHECK(rt::point_uniform_index(d, 0) / 2 < rt::point_normal_index(d, 1, 0) / 2);
  CHECK(rt::point_uniform_index(d, 0) / 2 > rt::point_normal_index(d, 0, d - 1) / 2);
}

TEST_CASE("strided top-k equals the contiguous top-k and a full sort", "[routing]") {
  const std::uint64_t seed = GENERATE(range(1, 21));
  const RandomStream rs(seed, StreamTag::property_test, 0);
  const int m = 2 + static_cast<int>(rs.uniform(0) * 40), k = 1 + static_cast<int>(rs.uniform(1) * (m - 1));
  const long stride = 1 + static_cast<long>(rs.uniform(2) * 5);
  std::vector<double> strided(static_cast<std::size_t>(m * stride), -1e300), contiguous(static_cast<std::size_t>(m));
  for (int j = 0; j < m; ++j) contiguous[static_cast<std::size_t>(j)] = strided[static_cast<std::size_t>(j * stride)] = rs.normal(10 + j);
  std::vector<int> a(static_cast<std::size_t>(k)), b(a.size());
  std::vector<double> work(a.size());
  rt::top_k_strided(strided.data(), stride, m, k, a.data(), work.data());
  rt::top_k_indices(contiguous.data(), m, k, b.data(), work.data());
  CAPTURE(m, k, stride);
  CHECK(a == b);
  std::vector<int> order(static_cast<std::size_t>(m));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return contiguous[static_cast<std::size_t>(x)] > contiguous[static_cast<std::size_t>(y)]; });
  order.resize(static_cast<std::size_t>(k));
  std::sort(order.begin(), order.end());
  CHECK(a == order);
}

TEST_CASE("rank_sorted equals SubsetRanker::rank over every subset", "[routing]") {
  const int m = GENERATE(5, 9), k = GENERATE(1, 3);
  const rt::SubsetRanker ranker(m, k);
  for (std::uint64_t r = 0; r < ranker.count(); ++r) {
    const std::vector<int> s = ranker.unrank(r);
    CHECK(rt::rank_sorted(s.data(), k, ranker.table().data(), ranker.table_stride()) == r);
  }
}

TEST_CASE("the device pipeline's layout gives the CPU reference's regions", "[routing]") {
  // Both sides compute the same scores up to summation order and a positive per-point factor (the
  // device drops 1/sqrt(d) and the ball's radius: they cannot change a rank), so a point changes
  // region only when its k-th and (k+1)-th scores tie to about 1e-15: the chance is of order 1e-13
  // per point, and 0 mismatches are required. Cases: both laws and paths, odd d (the last Philox
  // pair half used), k = 1 and k = 32 (the capacities' ends), k between capacities (k = 3, 9), and
  // several device batches starting at an offset inside a point stream (batch 768 over 2000 points).
  struct Case {
    int m, k, d;
    rt::ScorePath path;
    rt::InputLaw law;
  };
  const Case c = GENERATE(Case{16, 8, 64, rt::ScorePath::full, rt::InputLaw::gaussian},
                          Case{16, 8, 64, rt::ScorePath::full, rt::InputLaw::ball},
                          Case{16, 8, 64, rt::ScorePath::projected, rt::InputLaw::gaussian},
                          Case{40, 3, 24, rt::ScorePath::full, rt::InputLaw::gaussian},
                          Case{12, 9, 33, rt::ScorePath::full, rt::InputLaw::ball},
                          Case{9, 1, 7, rt::ScorePath::full, rt::InputLaw::gaussian},
                          Case{9, 1, 17, rt::ScorePath::projected, rt::InputLaw::gaussian},
                          Case{40, 32, 45, rt::ScorePath::full, rt::InputLaw::gaussian},
                          Case{36, 32, 40, rt::ScorePath::projected, rt::InputLaw::gaussian});
  CAPTURE(c.m, c.k, c.d, static_cast<int>(c.path), rt::input_law_name(c.law));
  const std::uint64_t seed = 5, draw = 2, first = rt::kPointsPerStream - 700, n = 2000;  // spans two point streams
  const rt::Router router(rt::gaussian_routing_vectors(c.m, c.d, seed, draw), c.k, c.path);
  std::vector<std::uint64_t> cpu(n);
  router.route(c.law, seed, draw, first, cpu);
  CHECK(mismatches(device_layout_ranks(router, seed, draw, first, n), cpu) == 0);
  CHECK(mismatches(device_layout_ranks(router, seed, draw, first, n, 768), cpu) == 0);  // 3 batches
  // Negative controls: the points of the next draw must land elsewhere for most points (the chance
  // of the same region is sum_S mu(U_S)^2, about 1/C(m, k) to 1.8/C(m, k); C(9, 1) = 9 is the
  // smallest here: about 0.2 expected, far below 1/2); and batches that restart at `first` instead
  // of first + done (an offset bug) must be caught likewise.
  CHECK(mismatches(device_layout_ranks(router, seed, draw + 1, first, n), cpu) > n / 2);
  std::vector<std::uint64_t> restarted = device_layout_ranks(router, seed, draw, first, 768);
  const auto second = device_layout_ranks(router, seed, draw, first, n - 768);
  restarted.insert(restarted.end(), second.begin(), second.end());
  CHECK(mismatches(restarted, cpu) > (n - 768) / 2);
}

TEST_CASE("the input law cannot show in ranks: ball and Gaussian points share every region", "[routing]") {
  // x = g / sqrt(d) (Gaussian) and x = g U^(1/d) / |g| (ball) are positive multiples of the same
  // raw normals g of a point (draw_points), so R x has the same order of scores: the CPU reference
  // routes every point to the same region under both laws (and so the device drops that pass). The
  // law shows only in quantities that depend on |x|; the region masses do not (granularity Lemma 3.2
  // holds for any rotation-invariant law). Exact equality up to a rounding tie (~1e-13 a point).
  const int m = GENERATE(6, 16), d = GENERATE(5, 64);
  const rt::Router router(rt::gaussian_routing_vectors(m, d, 3, 1), 2, rt::ScorePath::full);
  const std::uint64_t n = 3000;
  std::vector<std::uint64_t> g(n), b(n);
  router.route(rt::InputLaw::gaussian, 3, 1, 100, g);
  router.route(rt::InputLaw::ball, 3, 1, 100, b);
  CHECK(mismatches(g, b) == 0);
  // Control: shifting the ball points by one point index must change most regions.
  router.route(rt::InputLaw::ball, 3, 1, 101, b);
  CHECK(mismatches(g, b) > n / 2);
}

TEST_CASE("the register top-k gives top_k_strided's set and rank for every k from 1 to 32", "[routing]") {
  // Random m > k, stride and scores; half the cases with scores rounded to a few values, so that
  // ties are common and the tie rule (lower index first) is exercised. Both the capacity the
  // device dispatches to and the largest capacity (32) must give the reference rank.
  for (int k = 1; k <= 32; ++k) {
    for (std::uint64_t rep = 0; rep < 6; ++rep) {
      const RandomStream rs(100 + static_cast<std::uint64_t>(k), StreamTag::property_test, rep);
      int m = k + 1 + static_cast<int>(rs.uniform(0) * 60);
      if (!rt::binomial_fits(m, k)) m = k + 1 + m % 20;  // C(k + 20, k) < 2^64 for every k <= 32
      const long stride = 1 + static_cast<long>(rs.uniform(1) * 4);
      const bool ties = rep % 2 == 1;
      std::vector<double> s(static_cast<std::size_t>(m * stride), 1e300);  // padding must never be read
      for (int j = 0; j < m; ++j) {
        const double x = rs.normal(10 + static_cast<std::uint64_t>(j));
        s[static_cast<std::size_t>(j * stride)] = ties ? std::round(2.0 * x) : x;
      }
      const rt::SubsetRanker ranker(m, k);
      std::vector<int> idx(static_cast<std::size_t>(k));
      std::vector<double> work(idx.size());
      rt::top_k_strided(s.data(), stride, m, k, idx.data(), work.data());
      const std::uint64_t want = rt::rank_sorted(idx.data(), k, ranker.table().data(), ranker.table_stride());
      CAPTURE(k, m, stride, ties);
      CHECK(device_top_k_rank(s.data(), stride, m, k, ranker.table().data(), ranker.table_stride()) == want);
      CHECK(rt::top_k_rank_fixed<32>(s.data(), stride, m, k, ranker.table().data(), ranker.table_stride()) == want);
    }
  }
  // Control: the rank of the k smallest (scores negated) differs from the k largest's.
  std::vector<double> s{0.3, -1.0, 2.0, 0.1, 1.5}, neg(s.size());
  for (std::size_t j = 0; j < s.size(); ++j) neg[j] = -s[j];
  const rt::SubsetRanker ranker(5, 2);
  CHECK(device_top_k_rank(s.data(), 1, 5, 2, ranker.table().data(), ranker.table_stride()) !=
        device_top_k_rank(neg.data(), 1, 5, 2, ranker.table().data(), ranker.table_stride()));
}

TEST_CASE("the point addressing refuses d above 131070, where the 32-bit block counter would wrap", "[routing]") {
  // The last block of a point stream: point 2^16 - 1's uniform block (pair index ceil(d/2)); below
  // 2^32 exactly when d <= kMaxPointDim.
  auto last_block = [](int d) { return rt::point_block_index(d, rt::kPointsPerStream - 1, (d + 1) / 2); };
  CHECK(last_block(rt::kMaxPointDim) == (std::uint64_t{1} << 32) - 1);
  CHECK(last_block(rt::kMaxPointDim + 1) >= (std::uint64_t{1} << 32));
  CHECK(last_block(rt::kMaxPointDim + 2) >= (std::uint64_t{1} << 32));
  CHECK(rt::point_dim_supported(rt::kMaxPointDim));
  CHECK_FALSE(rt::point_dim_supported(rt::kMaxPointDim + 1));
  CHECK_FALSE(rt::point_dim_supported(0));
  // What the limit prevents: at d = 131072 the 32-bit counter makes point 2^16 - 1's pair b = 1 the
  // very block of point 0's pair b = 0, so the two points would share normals.
  {
    const int d = 131072;
    CHECK(static_cast<std::uint32_t>(rt::point_block_index(d, rt::kPointsPerStream - 1, 1)) ==
          static_cast<std::uint32_t>(rt::point_block_index(d, 0, 0)));
  }
  // At the limit the last point of a stream is drawn (131070 normals), its last coordinate is the
  // kernel's last pair, and it shares no normal with point 0; above the limit draw_points refuses.
  const std::uint64_t last = rt::kPointsPerStream - 1;
  const double root_d = std::sqrt(static_cast<double>(rt::kMaxPointDim));
  Eigen::MatrixXd X(rt::kMaxPointDim, 1), Y(rt::kMaxPointDim, 1);
  rt::draw_points(rt::InputLaw::gaussian, 1, 0, last, X);
  rt::draw_points(rt::InputLaw::gaussian, 1, 0, 0, Y);
  CHECK(X.allFinite());
  CHECK((X.col(0).array() == Y.col(0).array()).count() == 0);
  double z0, z1;
  rt::point_normal_pair(1, 0, rt::kMaxPointDim, last, rt::kMaxPointDim / 2 - 1, z0, z1);
  // draw_points' bulk normals equal the per-block ones within 2e-14 (batched_normals' test); 1e-13 with 1/sqrt(d).
  CHECK(std::abs(z1 / root_d - X(rt::kMaxPointDim - 1, 0)) < 1e-13);
  Eigen::MatrixXd Z(rt::kMaxPointDim + 1, 1);
  CHECK_THROWS(rt::draw_points(rt::InputLaw::gaussian, 1, 0, 0, Z));
}

TEST_CASE("the dense device histogram and the hashed run merge equal the CPU histograms", "[routing]") {
  // Dense: the fused atomics of top_k_kernel, emulated by counting the emulated ranks, against
  // region_histogram (CPU) over several batches, for four shapes. Hashed: per-batch sorted runs
  // (what CUB's radix sort + run-length encoding produce) merged by RunMerger, against the same.
  struct Case {
    int m, k, d;
    rt::ScorePath path;
  };
  const Case c = GENERATE(Case{8, 3, 16, rt::ScorePath::full}, Case{16, 8, 31, rt::ScorePath::full},
                          Case{10, 1, 10, rt::ScorePath::projected}, Case{34, 32, 40, rt::ScorePath::full});
  CAPTURE(c.m, c.k, c.d);
  const std::uint64_t seed = 21, draw = 4, n = 5000, batch = 1280;
  const rt::Router router(rt::gaussian_routing_vectors(c.m, c.d, seed, draw), c.k, c.path);
  const auto cpu = rt::region_histogram(router, rt::InputLaw::gaussian, n, seed, draw, true).sorted_entries();
  std::vector<std::uint64_t> hist(router.ranker().count(), 0);
  const auto ranks = device_layout_ranks(router, seed, draw, 0, n, batch, &hist);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> dense;
  for (std::uint64_t r = 0; r < hist.size(); ++r)
    if (hist[r] > 0) dense.emplace_back(r, hist[r]);
  CHECK(dense == cpu);
  rt::RunMerger merger;
  for (std::uint64_t done = 0; done < n; done += batch) {
    std::vector<std::uint64_t> b(ranks.begin() + static_cast<long>(done), ranks.begin() + static_cast<long>(std::min(n, done + batch)));
    std::sort(b.begin(), b.end());
    std::vector<std::uint64_t> keys;
    std::vector<unsigned int> counts;
    for (const std::uint64_t r : b) {
      if (keys.empty() || keys.back() != r) keys.push_back(r), counts.push_back(0);
      ++counts.back();
    }
    merger.add(keys.data(), counts.data(), keys.size());
  }
  CHECK(merger.finish() == cpu);
  // Control: the histogram of another draw's points differs.
  std::vector<std::uint64_t> other(router.ranker().count(), 0);
  device_layout_ranks(router, seed, draw + 1, 0, n, batch, &other);
  CHECK(other != hist);
}

TEST_CASE("RunMerger equals a map over many random batches", "[routing]") {
  // 200 batches of sorted runs over keys < 5000 (many repeats across batches): the stack merge must
  // give the same sorted (key, total) list as accumulating into a std::map.
  rt::RunMerger merger;
  std::map<std::uint64_t, std::uint64_t> want;
  for (std::uint64_t b = 0; b < 200; ++b) {
    const RandomStream rs(7, StreamTag::property_test, b);
    const auto len = static_cast<std::uint64_t>(rs.uniform(0) * 300);
    std::vector<std::uint64_t> keys;
    std::vector<unsigned int> counts;
    for (std::uint64_t j = 0; j < len; ++j) keys.push_back(static_cast<std::uint64_t>(rs.uniform(1 + j) * 5000));
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    for (std::size_t j = 0; j < keys.size(); ++j) {
      counts.push_back(1 + static_cast<unsigned int>(rs.uniform(1000 + j) * 9));
      want[keys[j]] += counts.back();
    }
    merger.add(keys.data(), counts.data(), keys.size());
  }
  CHECK(merger.finish() == std::vector<std::pair<std::uint64_t, std::uint64_t>>(want.begin(), want.end()));
  CHECK(merger.finish().empty());
}

TEST_CASE("the device's hashed path (runs per chunk, merged, taken as sorted runs) equals the CPU hash map exactly", "[routing]") {
  // kernels/routing_masses.cu, hashed regime: the ranks of a chunk of whole batches are sorted and
  // run-length encoded once per chunk (CUB); the chunks' runs go through RunMerger; the result becomes
  // the histogram by RegionHistogram::from_sorted_runs (no hashing). Emulated here from the device
  // layout's ranks, for a single chunk and for chunks that split the points unevenly, against the CPU's
  // hashed histogram (Router::count): every accessor must agree exactly, before and after an add().
  const std::uint64_t seed = 5, draw = 2, n = 20000, batch = 1280;
  const rt::Router router(rt::gaussian_routing_vectors(64, 16, seed, draw), 5, rt::ScorePath::full);  // C(64,5) = 7.6e6 > 2^22
  const std::uint64_t C = router.ranker().count();
  REQUIRE(C > rt::RegionHistogram::kDenseLimit);
  rt::RegionHistogram cpu(C);
  router.count(rt::InputLaw::gaussian, seed, draw, 0, n, cpu);
  REQUIRE_FALSE(cpu.dense());
  const auto ranks = device_layout_ranks(router, seed, draw, 0, n, batch, nullptr);
  for (const std::uint64_t chunk : {n, 5 * batch, batch}) {
    CAPTURE(chunk);
    rt::RunMerger merger;
    for (std::uint64_t first = 0; first < n; first += chunk) {
      std::vector<std::uint64_t> b(ranks.begin() + static_cast<long>(first), ranks.begin() + static_cast<long>(std::min(n, first + chunk)));
      std::sort(b.begin(), b.end());  // DeviceRadixSort::SortKeys
      std::vector<std::uint64_t> keys;  // DeviceRunLengthEncode::Encode
      std::vector<unsigned int> counts;
      for (const std::uint64_t r : b) {
        if (keys.empty() || keys.back() != r) keys.push_back(r), counts.push_back(0);
        ++counts.back();
      }
      merger.add(keys.data(), counts.data(), keys.size());
    }
    rt::RegionHistogram dev = rt::RegionHistogram::from_sorted_runs(C, merger.finish());
    REQUIRE_FALSE(dev.dense());
    CHECK(dev.sorted_entries() == cpu.sorted_entries());
    CHECK(dev.total() == cpu.total());
    CHECK(dev.occupied() == cpu.occupied());
    CHECK(dev.pair_collisions() == cpu.pair_collisions());
    CHECK(dev.regions_at_least(2) == cpu.regions_at_least(2));
    for (std::uint64_t r : {ranks[0], ranks[n / 2], ranks[n - 1], std::uint64_t{0}, C - 1}) CHECK(dev.count(r) == cpu.count(r));
    const rt::RegionMassSummary sd = rt::summarize_regions(dev), sc = rt::summarize_regions(cpu);
    CHECK(sd.occupied == sc.occupied);
    CHECK(sd.normalized_second_moment == sc.normalized_second_moment);
    // add() and merge() turn the runs into the hash table without changing a count.
    rt::RegionHistogram cpu2 = cpu;
    dev.add(ranks[7], 3), cpu2.add(ranks[7], 3);
    dev.add(C - 2), cpu2.add(C - 2);
    CHECK(dev.sorted_entries() == cpu2.sorted_entries());
    rt::RegionHistogram merged(C);
    merged.merge(rt::RegionHistogram::from_sorted_runs(C, cpu.sorted_entries()));
    CHECK(merged.sorted_entries() == cpu.sorted_entries());
  }
  // Control: runs of another draw's points differ from this draw's histogram.
  rt::RegionHistogram other(C);
  router.count(rt::InputLaw::gaussian, seed, draw + 1, 0, n, other);
  CHECK(rt::RegionHistogram::from_sorted_runs(C, other.sorted_entries()).sorted_entries() != cpu.sorted_entries());
}

TEST_CASE("RegionHistogram::from_sorted_runs: dense below the limit, and malformed runs refused", "[routing]") {
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> runs{{1, 2}, {5, 1}, {9, 4}};
  const auto dense = rt::RegionHistogram::from_sorted_runs(10, runs);
  CHECK(dense.dense());
  CHECK(dense.sorted_entries() == runs);
  CHECK(dense.total() == 7);
  const auto hashed = rt::RegionHistogram::from_sorted_runs(10, runs, 4);
  CHECK_FALSE(hashed.dense());
  CHECK(hashed.sorted_entries() == runs);
  CHECK(hashed.count(9) == 4);
  CHECK(hashed.count(8) == 0);
  using Runs = std::vector<std::pair<std::uint64_t, std::uint64_t>>;
  CHECK_THROWS(rt::RegionHistogram::from_sorted_runs(10, Runs{{5, 1}, {1, 2}}, 4));   // not ascending
  CHECK_THROWS(rt::RegionHistogram::from_sorted_runs(10, Runs{{1, 1}, {1, 2}}, 4));   // repeated rank
  CHECK_THROWS(rt::RegionHistogram::from_sorted_runs(10, Runs{{1, 0}}, 4));           // empty run
  CHECK_THROWS(rt::RegionHistogram::from_sorted_runs(10, Runs{{10, 1}}, 4));          // rank out of range
}
