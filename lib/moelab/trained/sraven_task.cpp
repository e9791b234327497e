#include "moelab/trained/sraven_task.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_map>

#include "moelab/core/distributions.hpp"
#include "moelab/core/error.hpp"
#include "moelab/core/interrupt.hpp"
#include "moelab/trained/fit_moe.hpp"
#include "moelab/moe/sequence_trainer.hpp"

namespace moelab::trained {

const char* to_string(SravenRule r) {
  switch (r) {
    case SravenRule::constant: return "constant";
    case SravenRule::progression_plus1: return "progression+1";
    case SravenRule::progression_plus2: return "progression+2";
    case SravenRule::progression_minus1: return "progression-1";
    case SravenRule::progression_minus2: return "progression-2";
    case SravenRule::addition: return "addition";
    case SravenRule::subtraction: return "subtraction";
    case SravenRule::distribute_three: return "distribute_three";
  }
  return "?";
}

namespace {

int mod(int a, int V) { return ((a % V) + V) % V; }

/// The progression step of rule r (1..4), 0 otherwise.
int step_of(int r) {
  switch (r) {
    case 1: return 1;
    case 2: return 2;
    case 3: return -1;
    case 4: return -2;
    default: return 0;
  }
}

/// Lexicographic non-decreasing tuples of M values in [0, R).
void enumerate(int R, int M, std::vector<int>& cur, std::vector<std::vector<int>>& out) {
  if (static_cast<int>(cur.size()) == M) {
    out.push_back(cur);
    return;
  }
  for (int r = cur.empty() ? 0 : cur.back(); r < R; ++r) {
    cur.push_back(r);
    enumerate(R, M, cur, out);
    cur.pop_back();
  }
}

}  // namespace

std::int64_t SravenTask::combination_count(int R, int M) {
  // C(R + M - 1, M), exact in integers for the sizes allowed (R <= 8, M <= 16: C(23, 16) = 245157).
  std::int64_t c = 1;
  for (int i = 1; i <= M; ++i) c = c * (R - 1 + i) / i;
  return c;
}

SravenTask::SravenTask(int M, int V, int rows, int R, double ood_fraction, std::uint64_t split_seed)
    : M_(M), V_(V), rows_(rows), R_(R) {
  MOELAB_EXPECT(M >= 1 && M <= 16, "SravenTask: M in 1..16");
  MOELAB_EXPECT(V >= 5 && V <= 64, "SravenTask: V in 5..64 (V >= 5 keeps the four progressions distinct)");
  MOELAB_EXPECT(rows >= 2 && rows <= 16, "SravenTask: rows in 2..16");
  MOELAB_EXPECT(R >= 1 && R <= kSravenRules, "SravenTask: R in 1..8");
  MOELAB_EXPECT(ood_fraction >= 0.0 && ood_fraction < 1.0, "SravenTask: ood_fraction in [0, 1)");
  std::vector<int> cur;
  enumerate(R, M, cur, combos_);
  const int n = static_cast<int>(combos_.size());
  // Fisher-Yates over the combination indices, draw i of RandomStream(split_seed, moe_shuffle, 0).
  std::vector<int> perm(static_cast<std::size_t>(n));
  std::iota(perm.begin(), perm.end(), 0);
  const RandomStream rs(split_seed, StreamTag::moe_shuffle, 0);
  for (int i = 0; i + 1 < n; ++i) {
    const int j = i + std::min(n - i - 1, static_cast<int>(rs.uniform(static_cast<std::uint64_t>(i)) * (n - i)));
    std::swap(perm[static_cast<std::size_t>(i)], perm[static_cast<std::size_t>(j)]);
  }
  const int n_ood = static_cast<int>(std::floor(static_cast<double>(n) * ood_fraction));
  MOELAB_EXPECT(n - n_ood >= 1, "SravenTask: no in-distribution combination left");
  MOELAB_EXPECT(ood_fraction == 0.0 || n_ood >= 1,
                "SravenTask: ood_fraction holds out no combination (floor(C(R + M - 1, M) x ood_fraction) = 0)");
  ood_of_.assign(static_cast<std::size_t>(n), 0);
  for (int i = 0; i < n; ++i) {
    const int c = perm[static_cast<std::size_t>(i)];
    ood_of_[static_cast<std::size_t>(c)] = i < n_ood ? 1 : 0;
  }
  // Each side in index order (a stable order for sampling).
  for (int c = 0; c < n; ++c) side_[ood_of_[static_cast<std::size_t>(c)]].push_back(c);
}

int SravenTask::index_of(const std::vector<int>& c) const {
  const auto it = std::lower_bound(combos_.begin(), combos_.end(), c);
  MOELAB_EXPECT(it != combos_.end() && *it == c, "SravenTask: not a combination (non-decreasing rules in [0, R))");
  return static_cast<int>(it - combos_.begin());
}

bool SravenTask::is_ood(const std::vector<int>& c) const { return ood_of_[static_cast<std::size_t>(index_of(c))] != 0; }

void SravenTask::set_combination_weights(std::vector<double> w) {
  MOELAB_EXPECT(w.size() == combos_.size(), "SravenTask::set_combination_weights: one weight per combination");
  for (double x : w) MOELAB_EXPECT(std::isfinite(x) && x > 0.0, "SravenTask::set_combination_weights: weights finite and > 0");
  weights_ = std::move(w);
  // Cumulative sums in the side's index order (the order sample() indexes): a fixed summation order,
  // so a pick is a function of the draw alone.
  for (int s = 0; s < 2; ++s) {
    cumulative_[s].clear();
    double acc = 0.0;
    for (int c : side_[s]) cumulative_[s].push_back(acc += weights_[static_cast<std::size_t>(c)]);
  }
}

double SravenTask::combination_probability(int c, bool ood) const {
  MOELAB_EXPECT(c >= 0 && c < static_cast<int>(combos_.size()), "SravenTask::combination_probability: index");
  const int s = ood ? 1 : 0;
  if (ood_of_[static_cast<std::size_t>(c)] != s) return 0.0;
  if (weights_.empty()) return 1.0 / static_cast<double>(side_[s].size());
  return weights_[static_cast<std::size_t>(c)] / cumulative_[s].back();
}

SravenTask::Problem SravenTask::sample(std::uint64_t seed, StreamTag tag, std::uint64_t index, bool ood, bool weighted) const {
  const auto& side = side_[ood ? 1 : 0];
  MOELAB_EXPECT(!side.empty(), "SravenTask: no OOD combinations (ood_fraction = 0)");
  MOELAB_EXPECT(!weighted || !weights_.empty(), "SravenTask::sample: weighted draw without combination weights");
  const RandomStream rs(seed, tag, index);
  std::uint64_t draw = 0;
  auto uniform_int = [&](int n) { return std::min(n - 1, static_cast<int>(rs.uniform(draw++) * n)); };
  Problem p;
  if (weighted) {
    // Draw 0 as in the uniform pick: the first side position whose cumulative weight exceeds u x total
    // (inverse-CDF sampling; header comment).
    const auto& cum = cumulative_[ood ? 1 : 0];
    const double x = rs.uniform(draw++) * cum.back();
    const auto at = std::min(side.size() - 1, static_cast<std::size_t>(std::upper_bound(cum.begin(), cum.end(), x) - cum.begin()));
    p.combination = combos_[static_cast<std::size_t>(side[at])];
  } else {
    p.combination = combos_[static_cast<std::size_t>(side[static_cast<std::size_t>(uniform_int(static_cast<int>(side.size())))])];
  }
  const int W = 3 * rows_;
  p.values.assign(static_cast<std::size_t>(M_) * W, 0);
  for (int j = 0; j < M_; ++j) {
    const int r = p.combination[static_cast<std::size_t>(j)];
    int* v = p.values.data() + static_cast<std::size_t>(j) * W;
    int set[3] = {0, 0, 0};
    if (r == 7) {
      // Three distinct values, uniform over the 3-subsets (a partial Fisher-Yates over Z_V).
      std::vector<int> z(static_cast<std::size_t>(V_));
      std::iota(z.begin(), z.end(), 0);
      for (int i = 0; i < 3; ++i) std::swap(z[static_cast<std::size_t>(i)], z[static_cast<std::size_t>(i + uniform_int(V_ - i))]);
      std::copy(z.begin(), z.begin() + 3, set);
    }
    for (int row = 0; row < rows_; ++row) {
      int* x = v + 3 * row;
      if (r == 0) {
        x[0] = x[1] = x[2] = uniform_int(V_);
      } else if (r <= 4) {
        const int s = uniform_int(V_), inc = step_of(r);
        x[0] = s, x[1] = mod(s + inc, V_), x[2] = mod(s + 2 * inc, V_);
      } else if (r <= 6) {
        x[0] = uniform_int(V_), x[1] = uniform_int(V_);
        x[2] = r == 5 ? mod(x[0] + x[1], V_) : mod(x[0] - x[1], V_);
      } else {
        // One of the 6 permutations of the set, uniformly.
        static constexpr int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
        const int q = uniform_int(6);
        for (int c = 0; c < 3; ++c) x[c] = set[perms[q][c]];
      }
    }
  }
  return p;
}

bool SravenTask::follows(int rule, const int* v) const {
  MOELAB_EXPECT(rule >= 0 && rule < kSravenRules, "SravenTask::follows: rule in 0..7");
  for (int row = 0; row < rows_; ++row) {
    const int* x = v + 3 * row;
    bool ok = true;
    if (rule == 0) ok = x[0] == x[1] && x[1] == x[2];
    else if (rule <= 4) ok = x[1] == mod(x[0] + step_of(rule), V_) && x[2] == mod(x[0] + 2 * step_of(rule), V_);
    else if (rule == 5) ok = x[2] == mod(x[0] + x[1], V_);
    else if (rule == 6) ok = x[2] == mod(x[0] - x[1], V_);
    else {
      int a[3] = {x[0], x[1], x[2]}, b[3] = {v[0], v[1], v[2]};
      std::sort(a, a + 3), std::sort(b, b + 3);
      ok = a[0] != a[1] && a[1] != a[2] && std::equal(a, a + 3, b);
    }
    if (!ok) return false;
  }
  return true;
}

double SravenTask::likelihood(int rule, const int* v, int* answer) const {
  const double V = V_;
  const int last = 3 * (rows_ - 1);  // first value of the last row
  const int x0 = v[last], x1 = v[last + 1];
  *answer = -1;
  double lik = 1.0;
  if (rule == 7) {
    // The first row fixes the set; every full row a permutation of it, the last row's two shown
    // values distinct members; the answer is the third member.
    int s[3] = {v[0], v[1], v[2]};
    std::sort(s, s + 3);
    if (s[0] == s[1] || s[1] == s[2]) return 0.0;
    for (int row = 1; row + 1 < rows_; ++row) {
      int a[3] = {v[3 * row], v[3 * row + 1], v[3 * row + 2]};
      std::sort(a, a + 3);
      if (!std::equal(a, a + 3, s)) return 0.0;
    }
    const auto in = [&](int x) { return x == s[0] || x == s[1] || x == s[2]; };
    if (x0 == x1 || !in(x0) || !in(x1)) return 0.0;
    *answer = s[0] + s[1] + s[2] - x0 - x1;
    // 1 / C(V, 3) for the set, 1/6 per full row, 1/6 for the last row's ordered pair.
    return 6.0 / (V * (V - 1) * (V - 2)) * std::pow(1.0 / 6.0, rows_);
  }
  for (int row = 0; row + 1 < rows_; ++row) {
    const int* x = v + 3 * row;
    bool ok;
    if (rule == 0) ok = x[0] == x[1] && x[1] == x[2];
    else if (rule <= 4) ok = x[1] == mod(x[0] + step_of(rule), V_) && x[2] == mod(x[0] + 2 * step_of(rule), V_);
    else if (rule == 5) ok = x[2] == mod(x[0] + x[1], V_);
    else ok = x[2] == mod(x[0] - x[1], V_);
    if (!ok) return 0.0;
    lik *= rule <= 4 ? 1.0 / V : 1.0 / (V * V);
  }
  if (rule == 0) {
    if (x0 != x1) return 0.0;
    *answer = x0;
    return lik / V;
  }
  if (rule <= 4) {
    if (x1 != mod(x0 + step_of(rule), V_)) return 0.0;
    *answer = mod(x1 + step_of(rule), V_);
    return lik / V;
  }
  *answer = rule == 5 ? mod(x0 + x1, V_) : mod(x0 - x1, V_);
  return lik / (V * V);
}

double SravenTask::bayes_correct(const Problem& p, bool ood) const { return bayes_correct(p, ood, false); }

double SravenTask::bayes_correct(const Problem& p, bool ood, bool weighted) const {
  MOELAB_EXPECT(!weighted || !weights_.empty(), "SravenTask::bayes_correct: weighted prior without combination weights");
  const int W = 3 * rows_;
  // Per feature and rule: the likelihood, normalised over the rules (a per-feature constant, so the
  // posterior over combinations is unchanged and the product over features cannot underflow).
  std::vector<double> lik(static_cast<std::size_t>(M_) * R_);
  std::vector<int> ans(static_cast<std::size_t>(M_) * R_);
  for (int j = 0; j < M_; ++j) {
    double sum = 0.0;
    for (int r = 0; r < R_; ++r) {
      const auto at = static_cast<std::size_t>(j) * R_ + r;
      lik[at] = likelihood(r, p.values.data() + static_cast<std::size_t>(j) * W, &ans[at]);
      sum += lik[at];
    }
    MOELAB_EXPECT(sum > 0.0, "SravenTask::bayes_correct: a feature no rule explains");
    for (int r = 0; r < R_; ++r) lik[static_cast<std::size_t>(j) * R_ + r] /= sum;
  }
  // Posterior mass of each answer vector (coded in base V), summed over the side's combinations.
  std::unordered_map<std::uint64_t, double> mass;
  for (int c : side_[ood ? 1 : 0]) {
    const auto& combo = combos_[static_cast<std::size_t>(c)];
    // The prior: uniform on the side (1), or the combination's weight (a common factor cancels).
    double w = weighted ? weights_[static_cast<std::size_t>(c)] : 1.0;
    std::uint64_t code = 0;
    for (int j = 0; j < M_ && w > 0.0; ++j) {
      const auto at = static_cast<std::size_t>(j) * R_ + combo[static_cast<std::size_t>(j)];
      w *= lik[at];
      code = code * static_cast<std::uint64_t>(V_) + static_cast<std::uint64_t>(std::max(0, ans[at]));
    }
    if (w > 0.0) mass[code] += w;
  }
  std::uint64_t truth = 0;
  for (int j = 0; j < M_; ++j) truth = truth * static_cast<std::uint64_t>(V_) + static_cast<std::uint64_t>(p.values[static_cast<std::size_t>(j) * W + W - 1]);
  double best = 0.0;
  for (const auto& [code, m] : mass) best = std::max(best, m);
  // Ties within a relative 1e-12 (the masses are sums of products of the same few likelihoods).
  int ties = 0;
  bool truth_best = false;
  for (const auto& [code, m] : mass)
    if (m >= best * (1.0 - 1e-12)) {
      ++ties;
      truth_best = truth_best || code == truth;
    }
  return truth_best ? 1.0 / ties : 0.0;
}

template <class S>
void SravenTask::encode(const std::vector<Problem>& problems, int d, moe::SequenceBatch<S>& b) const {
  MOELAB_EXPECT(d >= token_width(), "SravenTask::encode: d below the token width M V + 3 rows");
  const int Tt = tokens(), W = 3 * rows_;
  const auto n = static_cast<Eigen::Index>(problems.size());
  b.T = Tt;
  b.X.setZero(d, n * Tt);
  b.labels.resize(static_cast<std::size_t>(n) * M_);
  for (Eigen::Index s = 0; s < n; ++s) {
    const auto& p = problems[static_cast<std::size_t>(s)];
    for (int t = 0; t < Tt; ++t) {
      const Eigen::Index col = s * Tt + t;
      b.X(M_ * V_ + t, col) = S(1);
      if (t == Tt - 1) continue;
      for (int j = 0; j < M_; ++j) b.X(j * V_ + p.values[static_cast<std::size_t>(j) * W + t], col) = S(1);
    }
    for (int j = 0; j < M_; ++j) b.labels[static_cast<std::size_t>(s) * M_ + j] = p.values[static_cast<std::size_t>(j) * W + W - 1];
  }
}

template void SravenTask::encode<float>(const std::vector<Problem>&, int, moe::SequenceBatch<float>&) const;
template void SravenTask::encode<double>(const std::vector<Problem>&, int, moe::SequenceBatch<double>&) const;

std::vector<double> powerlaw_combination_weights(const SravenTask& task, const sparsity::DifficultySpec& spec) {
  MOELAB_EXPECT(spec.kind == sparsity::Difficulty::powerlaw, "powerlaw_combination_weights: needs a power-law spec");
  MOELAB_EXPECT(std::isfinite(spec.alpha) && spec.alpha > 0.0, "powerlaw_combination_weights: alpha must be finite and > 0");
  const auto D = sparsity::difficulty_values(spec, task.R());  // D_1..D_R; rule r has D_{r+1}
  std::vector<double> w;
  w.reserve(task.combinations().size());
  for (const auto& c : task.combinations()) {
    // A.5: w_{i,i'} = (D_i + D_i')^(-alpha); for M rules the sum runs over the combination's M rules.
    double s = 0.0;
    for (int r : c) s += D[static_cast<std::size_t>(r)];
    w.push_back(std::pow(s, -spec.alpha));
  }
  return w;
}

// ---- the training run ----

void SravenSpec::validate() const {
  MOELAB_EXPECT(T >= 1 && T <= 64 && k >= 1 && k <= T && width >= 1, "SravenSpec: experts, k, width");
  MOELAB_EXPECT(heads >= 1 && d_head >= 1 && d >= 0, "SravenSpec: heads, d_head, d");
  MOELAB_EXPECT(steps >= 0 && batch >= 1 && test_size >= 1 && lr > 0.0 && weight_decay >= 0.0, "SravenSpec: budget");
}

SravenTask make_sraven_task(const SravenSpec& s, const RngKey& key, std::int64_t trial) {
  SravenTask task(s.M, s.V, s.rows, s.R, s.ood_fraction, key.with("split", trial).seed());
  if (s.combination_weights.kind == sparsity::Difficulty::powerlaw)
    task.set_combination_weights(powerlaw_combination_weights(task, s.combination_weights));
  return task;
}

namespace {

using Sf = float;  // training in float: the block's float path is checked against double in its tests

struct Scores {
  double exact = 0, entry = 0, loss = 0;
  std::vector<double> feature;
};

/// Loss, exact-match and per-entry accuracies of the trainer's model on `problems`, in chunks of 512
/// sequences (bounded memory), chunks summed in order.
Scores score(moe::SequenceTrainer<Sf>& model, const SravenTask& task, const std::vector<SravenTask::Problem>& problems, int d,
             typename moe::SequenceTrainer<Sf>::Mat& logits) {
  Scores sc;
  const int M = task.M(), V = task.V();
  sc.feature.assign(static_cast<std::size_t>(M), 0.0);
  const std::size_t n = problems.size(), chunk = 512;
  std::int64_t exact = 0;
  std::vector<std::int64_t> right(static_cast<std::size_t>(M), 0);
  moe::SequenceBatch<Sf> b;
  for (std::size_t begin = 0; begin < n; begin += chunk) {
    const std::size_t end = std::min(n, begin + chunk);
    const std::vector<SravenTask::Problem> part(problems.begin() + static_cast<std::ptrdiff_t>(begin),
                                                problems.begin() + static_cast<std::ptrdiff_t>(end));
    task.encode(part, d, b);
    sc.loss += model.evaluate(b, logits) * static_cast<double>(end - begin);
    for (std::size_t i = 0; i < end - begin; ++i) {
      bool all = true;
      for (int j = 0; j < M; ++j) {
        const Sf* z = logits.data() + static_cast<Eigen::Index>(i) * M * V + j * V;
        const int arg = static_cast<int>(std::max_element(z, z + V) - z);
        const bool ok = arg == b.labels[i * static_cast<std::size_t>(M) + j];
        right[static_cast<std::size_t>(j)] += ok;
        all = all && ok;
      }
      exact += all;
    }
  }
  const double nn = static_cast<double>(n);
  sc.loss /= nn;
  sc.exact = static_cast<double>(exact) / nn;
  for (int j = 0; j < M; ++j) {
    sc.feature[static_cast<std::size_t>(j)] = static_cast<double>(right[static_cast<std::size_t>(j)]) / nn;
    sc.entry += sc.feature[static_cast<std::size_t>(j)] / M;
  }
  return sc;
}

}  // namespace

SravenRun run_sraven_trial(const SravenSpec& spec, const RngKey& key, std::int64_t trial, double lr_scale) {
  spec.validate();
  const SravenTask task = make_sraven_task(spec, key, trial);
  const int d = spec.width_d(task.token_width());
  MOELAB_EXPECT(d >= task.token_width(), "run_sraven_trial: d below the token width M V + 3 rows");
  moe::SequenceShape shape;
  shape.block.d = d, shape.block.heads = spec.heads, shape.block.d_head = spec.d_head;
  shape.block.attention = spec.attention, shape.block.norm = spec.norm;
  auto& f = shape.block.ffn;
  f.m = spec.T, f.k = spec.k, f.w = spec.width, f.expert = moe::ExpertKind::mlp, f.expert_bias = true, f.router_bias = false;
  f.weighting = moe::Weighting::softmax, f.gate = spec.gate;
  shape.out_heads = task.M(), shape.classes = task.V();
  moe::SequenceClassifier<Sf> model(shape);
  moe::init_pytorch(model, key.with("model", trial).seed());

  const std::uint64_t data = key.with("data", trial).seed();
  std::vector<SravenTask::Problem> test, ood;
  for (std::int64_t i = 0; i < spec.test_size; ++i) test.push_back(task.sample(data, StreamTag::moe_test_data, static_cast<std::uint64_t>(i), false));
  const bool has_ood = !task.ood_indices().empty();
  const std::uint64_t ood_seed = key.with("ood_data", trial).seed();
  if (has_ood)
    for (std::int64_t i = 0; i < spec.test_size; ++i) ood.push_back(task.sample(ood_seed, StreamTag::moe_test_data, static_cast<std::uint64_t>(i), true));
  // Power-law combination weights: the training stream and two more test sets are drawn with them.
  const bool weighted = task.has_combination_weights();
  std::vector<SravenTask::Problem> test_w, ood_w;
  if (weighted) {
    const std::uint64_t wseed = key.with("weighted_data", trial).seed(), wood_seed = key.with("weighted_ood_data", trial).seed();
    for (std::int64_t i = 0; i < spec.test_size; ++i)
      test_w.push_back(task.sample(wseed, StreamTag::moe_test_data, static_cast<std::uint64_t>(i), false, true));
    if (has_ood)
      for (std::int64_t i = 0; i < spec.test_size; ++i)
        ood_w.push_back(task.sample(wood_seed, StreamTag::moe_test_data, static_cast<std::uint64_t>(i), true, true));
  }

  // The CPU trainer is train_step / sequence_loss on one SequenceTrainState (transformer.hpp); the
  // CUDA trainer the same step on the device (moe/sequence_trainer.hpp). The data are sampled and
  // encoded here for both.
  const auto trainer = moe::make_sequence_trainer<Sf>(spec.backend, model);
  typename moe::SequenceTrainer<Sf>::Mat logits;
  SravenRun r;
  r.initial_loss = score(*trainer, task, test, d, logits).loss;
  moe::AdamWConfig cfg;
  cfg.lr = spec.lr * lr_scale, cfg.weight_decay = spec.weight_decay, cfg.total_steps = std::max<std::int64_t>(1, spec.steps);
  moe::SequenceBatch<Sf> batch;
  std::vector<SravenTask::Problem> problems(static_cast<std::size_t>(spec.batch));
  const std::int64_t tail = std::max<std::int64_t>(1, spec.steps / 20);
  double tail_loss = 0.0;
  for (std::int64_t step = 0; step < spec.steps; ++step) {
    // Fresh ID problems every step (the public generator's 20M-problem training stream is never
    // repeated either): sample step * batch + i of the training stream.
    for (std::int64_t i = 0; i < spec.batch; ++i)
      problems[static_cast<std::size_t>(i)] =
          task.sample(data, StreamTag::moe_train_data, static_cast<std::uint64_t>(step * spec.batch + i), false, weighted);
    task.encode(problems, d, batch);
    trainer->train_step(batch, cfg);
    // SIGINT/SIGTERM within kPollSteps steps (about a second even at the paper size, 0.064 s a step;
    // one run is up to ~20 CPU-minutes). Polling does not change the numbers; an interrupted run
    // writes no row.
    if ((step + 1) % kPollSteps == 0) check_interrupted();
  }
  const std::vector<double>& losses = trainer->losses();
  for (std::int64_t step = std::max<std::int64_t>(0, spec.steps - tail); step < spec.steps; ++step)
    tail_loss += losses[static_cast<std::size_t>(step)] / static_cast<double>(tail);
  r.final_train_loss = spec.steps > 0 ? tail_loss : std::numeric_limits<double>::quiet_NaN();
  const Scores id = score(*trainer, task, test, d, logits);
  r.final_loss = id.loss, r.id_accuracy = id.exact, r.id_entry_accuracy = id.entry, r.id_feature_accuracy = id.feature;
  if (has_ood) {
    const Scores o = score(*trainer, task, ood, d, logits);
    r.ood_accuracy = o.exact, r.ood_entry_accuracy = o.entry, r.ood_feature_accuracy = o.feature;
  } else {
    r.ood_accuracy = r.ood_entry_accuracy = std::numeric_limits<double>::quiet_NaN();
  }
  if (weighted) {
    const Scores idw = score(*trainer, task, test_w, d, logits);
    r.id_weighted_accuracy = idw.exact, r.id_weighted_entry_accuracy = idw.entry;
    if (has_ood) {
      const Scores ow = score(*trainer, task, ood_w, d, logits);
      r.ood_weighted_accuracy = ow.exact, r.ood_weighted_entry_accuracy = ow.entry;
    } else {
      r.ood_weighted_accuracy = r.ood_weighted_entry_accuracy = std::numeric_limits<double>::quiet_NaN();
    }
  } else {
    r.id_weighted_accuracy = r.id_accuracy, r.id_weighted_entry_accuracy = r.id_entry_accuracy;
    r.ood_weighted_accuracy = r.ood_accuracy, r.ood_weighted_entry_accuracy = r.ood_entry_accuracy;
  }
  if (spec.bayes) {
    // Mean Bayes ceiling of a test set under the side's uniform or weighted prior.
    auto ceiling = [&](const std::vector<SravenTask::Problem>& set, bool ood_side, bool prior_weighted) {
      double b = 0.0;
      for (const auto& p : set) b += task.bayes_correct(p, ood_side, prior_weighted);
      return b / static_cast<double>(set.size());
    };
    const double nan = std::numeric_limits<double>::quiet_NaN();
    r.bayes_id = ceiling(test, false, false);
    r.bayes_ood = has_ood ? ceiling(ood, true, false) : nan;
    r.bayes_id_weighted = weighted ? ceiling(test_w, false, true) : r.bayes_id;
    r.bayes_ood_weighted = weighted ? (has_ood ? ceiling(ood_w, true, true) : nan) : r.bayes_ood;
  } else {
    r.bayes_id = r.bayes_ood = r.bayes_id_weighted = r.bayes_ood_weighted = std::numeric_limits<double>::quiet_NaN();
  }
  return r;
}

}  // namespace moelab::trained
