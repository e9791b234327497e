#include "moelab/trained/compositional_task.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "moelab/core/distributions.hpp"
#include "moelab/core/error.hpp"

namespace moelab::trained {

CompositionalTask::CompositionalTask(int R, int V, int M, int rows, double ood_fraction, std::uint64_t rules_seed,
                                     std::uint64_t split_seed)
    : R_(R), V_(V), M_(M), rows_(rows), ood_fraction_(ood_fraction), split_seed_(split_seed) {
  MOELAB_EXPECT(V >= 2 && V <= 64 && R >= 1 && R <= V * V * V && M >= 1 && M <= 16 && rows >= 2 && rows <= 16,
                "CompositionalTask: sizes");
  MOELAB_EXPECT(ood_fraction >= 0.0 && ood_fraction < 1.0, "CompositionalTask: ood_fraction in [0, 1)");
  // R distinct affine rules: the first R of a Fisher-Yates shuffle of the V^3 triples.
  const int n = V * V * V;
  std::vector<int> idx(static_cast<std::size_t>(n));
  std::iota(idx.begin(), idx.end(), 0);
  const RandomStream rs(rules_seed, StreamTag::moe_init, 0);
  for (int i = 0; i < R; ++i) {
    const int j = i + std::min(n - i - 1, static_cast<int>(rs.uniform(static_cast<std::uint64_t>(i)) * (n - i)));
    std::swap(idx[static_cast<std::size_t>(i)], idx[static_cast<std::size_t>(j)]);
    const int t = idx[static_cast<std::size_t>(i)];
    rules_.push_back({t / (V * V), (t / V) % V, t % V});
  }
  // The split of R^M tuples is a Philox draw per tuple; with few tuples (R = 2, M = 2: 4) it can put
  // all of them on one side (seeds 1, 2, 5 at the default fraction), and then no problem of the
  // empty side can be drawn. Enumerated up to 2^20 tuples: a one-sided split moves the tuple nearest
  // the threshold across, so both sides are non-empty; a split it leaves two-sided is unchanged.
  const double tuples = std::pow(static_cast<double>(R), M);
  if (M > 1 && ood_fraction > 0.0 && tuples <= static_cast<double>(1 << 20)) {
    const auto total = static_cast<std::uint64_t>(tuples);
    std::uint64_t ood = 0, lowest = 0, highest = 0;
    double lo = 2.0, hi = -1.0;
    for (std::uint64_t i = 0; i < total; ++i) {
      const double u = RandomStream(split_seed_, StreamTag::moe_shuffle, i).uniform(0);
      ood += u < ood_fraction;
      if (u < lo) lo = u, lowest = i;
      if (u > hi) hi = u, highest = i;
    }
    if (ood == 0) flipped_ = lowest, ood = 1;
    else if (ood == total) flipped_ = highest, ood = total - 1;
    ood_count_ = static_cast<std::int64_t>(ood);
    // A side holding under 1 in 10^4 of the tuples is sampled from its list (rejection would need
    // ~10^4 attempts per problem); other sides keep rejection sampling, so their bytes are unchanged.
    for (int side = 0; side < 2; ++side) {
      const std::uint64_t count = side ? ood : total - ood;
      if (static_cast<double>(count) >= 1e-4 * static_cast<double>(total)) continue;
      for (std::uint64_t i = 0; i < total; ++i)
        if ((natural_ood(i) != (i == flipped_)) == (side == 1)) rare_side_[side].push_back(i);
    }
  }
}

std::uint64_t CompositionalTask::index_of(const std::vector<int>& c) const {
  std::uint64_t index = 0;
  for (int r : c) index = index * static_cast<std::uint64_t>(R_) + static_cast<std::uint64_t>(r);
  return index;
}

bool CompositionalTask::natural_ood(std::uint64_t index) const {
  const RandomStream rs(split_seed_, StreamTag::moe_shuffle, index);
  return rs.uniform(0) < ood_fraction_;
}

bool CompositionalTask::is_ood(const std::vector<int>& c) const {
  if (M_ == 1) return false;
  const std::uint64_t index = index_of(c);
  return natural_ood(index) != (index == flipped_);
}

CompositionalTask::Problem CompositionalTask::sample(std::uint64_t seed, StreamTag tag, std::uint64_t index, bool ood) const {
  MOELAB_EXPECT(!ood || (M_ > 1 && ood_fraction_ > 0.0), "CompositionalTask: no OOD combinations");
  const RandomStream rs(seed, tag, index);
  std::uint64_t j = 0;
  Problem p;
  p.combination.resize(static_cast<std::size_t>(M_));
  const auto& rare = rare_side_[ood ? 1 : 0];
  if (!rare.empty()) {
    // A rare side: one of its tuples, uniformly.
    std::uint64_t index = rare[std::min(rare.size() - 1, static_cast<std::size_t>(rs.uniform(j++) * static_cast<double>(rare.size())))];
    for (int f = M_ - 1; f >= 0; --f) {
      p.combination[static_cast<std::size_t>(f)] = static_cast<int>(index % static_cast<std::uint64_t>(R_));
      index /= static_cast<std::uint64_t>(R_);
    }
  }
  // Rejection: P(accept) >= min(ood_fraction, 1 - ood_fraction) up to the split's sampling noise.
  for (int attempt = 0; rare.empty(); ++attempt) {
    MOELAB_EXPECT(attempt < 100000, "CompositionalTask: no combination on the requested side of the split");
    for (int f = 0; f < M_; ++f)
      p.combination[static_cast<std::size_t>(f)] = std::min(R_ - 1, static_cast<int>(rs.uniform(j++) * R_));
    if (is_ood(p.combination) == ood) break;
  }
  const int per = panels() + 1;
  p.values.assign(static_cast<std::size_t>(M_ * per), 0);
  for (int f = 0; f < M_; ++f) {
    const Rule& rule = rules_[static_cast<std::size_t>(p.combination[static_cast<std::size_t>(f)])];
    for (int row = 0; row < rows_; ++row) {
      const int a = std::min(V_ - 1, static_cast<int>(rs.uniform(j++) * V_));
      const int b = std::min(V_ - 1, static_cast<int>(rs.uniform(j++) * V_));
      int* v = p.values.data() + f * per + 3 * row;
      v[0] = a, v[1] = b, v[2] = rule.apply(a, b, V_);
    }
  }
  return p;
}

CompositionalTask::Data CompositionalTask::draw(std::int64_t n, std::uint64_t seed, StreamTag tag, bool ood) const {
  Data d;
  d.X = Mat::Zero(input_dim(), n);
  d.labels.resize(static_cast<std::size_t>(n * M_));
  d.problems.reserve(static_cast<std::size_t>(n));
  const int per = panels() + 1;
  for (std::int64_t i = 0; i < n; ++i) {
    d.problems.push_back(sample(seed, tag, static_cast<std::uint64_t>(i), ood));
    const auto& p = d.problems.back();
    for (int f = 0; f < M_; ++f) {
      for (int q = 0; q < panels(); ++q) d.X((f * panels() + q) * V_ + p.values[static_cast<std::size_t>(f * per + q)], i) = 1.0;
      d.labels[static_cast<std::size_t>(i * M_ + f)] = p.values[static_cast<std::size_t>(f * per + panels())];
    }
  }
  return d;
}

double CompositionalTask::bayes_correct(const Problem& p) const {
  const int per = panels() + 1;
  double prob = 1.0;
  std::vector<int> votes(static_cast<std::size_t>(V_));
  for (int f = 0; f < M_; ++f) {
    const int* v = p.values.data() + f * per;
    std::fill(votes.begin(), votes.end(), 0);
    int consistent = 0;
    for (const Rule& r : rules_) {
      bool ok = true;
      for (int row = 0; row + 1 < rows_ && ok; ++row) ok = r.apply(v[3 * row], v[3 * row + 1], V_) == v[3 * row + 2];
      if (!ok) continue;
      ++consistent;
      ++votes[static_cast<std::size_t>(r.apply(v[3 * (rows_ - 1)], v[3 * (rows_ - 1) + 1], V_))];
    }
    // The true rule is always consistent, so consistent >= 1. The Bayes rule answers the value with
    // the most votes; with ties it is right with probability (votes of the truth) / consistent when
    // the truth is among the tied maxima, averaged over a uniform tie-break.
    const int best = *std::max_element(votes.begin(), votes.end());
    const int truth = v[per - 1];
    if (votes[static_cast<std::size_t>(truth)] != best) return 0.0;
    const auto ties = std::count(votes.begin(), votes.end(), best);
    prob *= 1.0 / static_cast<double>(ties);
  }
  return prob;
}

void CompositionalSpec::validate() const {
  MOELAB_EXPECT(T >= 1 && T <= 64 && k >= 1 && k <= T && width >= 1, "CompositionalSpec: model sizes");
  MOELAB_EXPECT(train_size >= 1 && test_size >= 1 && steps >= 1 && batch >= 1 && lr > 0.0, "CompositionalSpec: budget");
}

namespace {

/// `model` with k active experts (the parameters do not depend on k: ParamLayout has no k).
Model with_k(const Model& model, int k) {
  moe::MoeShape s = model.shape();
  s.k = k;
  Model out(s);
  out.params() = model.params();
  return out;
}

}  // namespace

CompositionalTask make_task(const CompositionalSpec& s, const RngKey& key) {
  return CompositionalTask(s.R, s.V, s.M, s.rows, s.ood_fraction, key.with("task").with("rules").seed(),
                           key.with("task").with("split").seed());
}

CompositionalRun run_compositional_trial(const CompositionalSpec& spec, const RngKey& key, std::int64_t trial,
                                         const std::vector<int>& eval_ks, Model* trained) {
  spec.validate();
  for (int k : eval_ks) MOELAB_EXPECT(k >= 1 && k <= spec.T, "run_compositional_trial: eval k in 1..T");
  MOELAB_EXPECT(eval_ks.empty() || spec.gating.routing == moe::Routing::top_k, "run_compositional_trial: eval k needs top-k routing");
  const CompositionalTask task = make_task(spec, key);
  const std::uint64_t data = key.with("data", trial).seed();
  const auto train = task.draw(spec.train_size, data, StreamTag::moe_train_data, false);
  const auto test = task.draw(spec.test_size, data, StreamTag::moe_test_data, false);
  const bool has_ood = task.M() > 1 && spec.ood_fraction > 0.0;

  moe::MoeShape shape;
  shape.m = spec.T, shape.k = spec.k, shape.w = spec.width, shape.d = task.input_dim(), shape.d_out = task.M() * task.V();
  shape.expert = moe::ExpertKind::mlp;
  shape.expert_bias = true;
  shape.router_bias = false;
  shape.weighting = moe::Weighting::softmax;
  spec.gating.apply(shape);
  Model model(shape);
  const std::uint64_t mseed = key.with("model", trial).seed();
  moe::init_pytorch(model, mseed);
  FitConfig cfg;
  cfg.steps = spec.steps, cfg.batch = spec.batch, cfg.lr = spec.lr, cfg.weight_decay = spec.weight_decay, cfg.shuffle_seed = mseed;
  const auto losses = fit_classifier(model, train.X, train.labels, task.M(), task.V(), cfg);

  CompositionalRun r;
  r.final_train_loss = losses.back();
  r.train_accuracy = accuracy(predict(model, train.X), train.labels, task.M(), task.V()).exact;
  const auto id = accuracy(predict(model, test.X), test.labels, task.M(), task.V());
  r.id_accuracy = id.exact, r.id_head_accuracy = id.per_head;
  r.mean_k = mean_active_experts(model, test.X);
  CompositionalTask::Data ood;
  if (has_ood) {
    // OOD test problems: their own seed, key.with("ood_data", trial).
    ood = task.draw(spec.test_size, key.with("ood_data", trial).seed(), StreamTag::moe_test_data, true);
    const auto a = accuracy(predict(model, ood.X), ood.labels, task.M(), task.V());
    r.ood_accuracy = a.exact, r.ood_head_accuracy = a.per_head;
  } else {
    r.ood_accuracy = r.ood_head_accuracy = std::numeric_limits<double>::quiet_NaN();
  }
  for (int k : eval_ks) {
    const Model at = with_k(model, k);
    AtK e;
    e.k = k;
    const auto a = accuracy(predict(at, test.X), test.labels, task.M(), task.V());
    e.id_accuracy = a.exact, e.id_head_accuracy = a.per_head;
    if (has_ood) {
      const auto o = accuracy(predict(at, ood.X), ood.labels, task.M(), task.V());
      e.ood_accuracy = o.exact, e.ood_head_accuracy = o.per_head;
    } else {
      e.ood_accuracy = e.ood_head_accuracy = std::numeric_limits<double>::quiet_NaN();
    }
    r.at_k.push_back(e);
  }
  double b = 0.0;
  for (const auto& p : test.problems) b += task.bayes_correct(p);
  r.bayes_id = b / static_cast<double>(test.problems.size());
  if (trained) *trained = std::move(model);
  return r;
}

}  // namespace moelab::trained
