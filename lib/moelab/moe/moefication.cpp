#include "moelab/moe/moefication.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <numeric>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "moelab/core/distributions.hpp"
#include "moelab/core/error.hpp"
#include "moelab/moe/adamw.hpp"
#include "moelab/moe/noisy_robustness.hpp"
#include "moelab/scenario/input_file.hpp"

namespace moelab::moe {

std::vector<int> kmeans(const Eigen::MatrixXd& X, int clusters, std::uint64_t seed, int iterations, Eigen::MatrixXd* centres_out) {
  const Eigen::Index n = X.cols();
  MOELAB_EXPECT(clusters >= 1 && n >= 1, "kmeans: needs points and clusters");
  const int K = static_cast<int>(std::min<Eigen::Index>(clusters, n));
  const RandomStream rs(seed, StreamTag::moe_shuffle, 0);
  Eigen::MatrixXd C(X.rows(), clusters);
  // k-means++ seeding: the first centre uniform, each next one with probability proportional to the
  // squared distance to the nearest chosen centre.
  Eigen::VectorXd dist = Eigen::VectorXd::Constant(n, std::numeric_limits<double>::infinity());
  Eigen::Index pick = std::min<Eigen::Index>(n - 1, static_cast<Eigen::Index>(rs.uniform(0) * static_cast<double>(n)));
  for (int c = 0; c < clusters; ++c) {
    if (c > 0 && c < K) {
      const double total = dist.sum();
      if (total > 0.0) {
        double u = rs.uniform(static_cast<std::uint64_t>(c)) * total, acc = 0.0;
        pick = n - 1;
        for (Eigen::Index i = 0; i < n; ++i) {
          acc += dist[i];
          if (acc >= u && dist[i] > 0.0) {
            pick = i;
            break;
          }
        }
      } else {
        pick = c % n;
      }
    }
    C.col(c) = X.col(c < K ? pick : c % n);
    for (Eigen::Index i = 0; i < n; ++i) dist[i] = std::min(dist[i], (X.col(i) - C.col(c)).squaredNorm());
  }
  std::vector<int> label(static_cast<std::size_t>(n), 0);
  for (int it = 0; it <= iterations; ++it) {
    bool changed = false;
    for (Eigen::Index i = 0; i < n; ++i) {
      int best = 0;
      double bd = std::numeric_limits<double>::infinity();
      for (int c = 0; c < clusters; ++c) {
        const double dd = (X.col(i) - C.col(c)).squaredNorm();
        if (dd < bd) bd = dd, best = c;
      }
      if (label[static_cast<std::size_t>(i)] != best || it == 0) changed = changed || label[static_cast<std::size_t>(i)] != best;
      label[static_cast<std::size_t>(i)] = best;
    }
    if (it > 0 && !changed) break;
    Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(X.rows(), clusters);
    std::vector<int> count(static_cast<std::size_t>(clusters), 0);
    for (Eigen::Index i = 0; i < n; ++i) sum.col(label[static_cast<std::size_t>(i)]) += X.col(i), ++count[static_cast<std::size_t>(label[static_cast<std::size_t>(i)])];
    for (int c = 0; c < clusters; ++c)
      if (count[static_cast<std::size_t>(c)] > 0) C.col(c) = sum.col(c) / count[static_cast<std::size_t>(c)];
  }
  if (centres_out) *centres_out = C;
  return label;
}

std::vector<int> spectral_blocks(const Eigen::MatrixXd& A, int blocks, std::uint64_t seed) {
  const Eigen::Index F = A.cols();
  MOELAB_EXPECT(blocks >= 1 && blocks <= F, "spectral_blocks: 1 <= blocks <= features");
  // noisy paper, App. B.1 / Fig. 1: cosine affinity of the features (columns), clipped at 0.
  Eigen::MatrixXd U = A;
  for (Eigen::Index j = 0; j < F; ++j) {
    const double nrm = U.col(j).norm();
    if (nrm > 0.0) U.col(j) /= nrm;
  }
  Eigen::MatrixXd W = (U.transpose() * U).cwiseMax(0.0);
  W.diagonal().setZero();
  Eigen::VectorXd dinv(F);
  for (Eigen::Index j = 0; j < F; ++j) {
    const double deg = W.col(j).sum();
    dinv[j] = deg > 0.0 ? 1.0 / std::sqrt(deg) : 0.0;
  }
  // Normalized Laplacian L = I - D^-1/2 W D^-1/2; its `blocks` smallest eigenvectors embed the features.
  Eigen::MatrixXd L = -(dinv.asDiagonal() * W * dinv.asDiagonal());
  L.diagonal().array() += 1.0;
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(L);
  Eigen::MatrixXd emb = es.eigenvectors().leftCols(blocks).transpose();  // blocks x F
  for (Eigen::Index j = 0; j < F; ++j) {
    const double nrm = emb.col(j).norm();
    if (nrm > 0.0) emb.col(j) /= nrm;
  }
  return kmeans(emb, blocks, seed);
}

BlockPicture block_picture(const Eigen::MatrixXd& A, int blocks, std::uint64_t seed, int max_rows, int max_cols) {
  const Eigen::Index n = A.rows(), F = A.cols();
  BlockPicture p;
  p.feature_block = spectral_blocks(A, blocks, seed);
  const Eigen::MatrixXd absA = A.cwiseAbs();
  // Tokens: the block with the largest mean |a| over its features.
  std::vector<int> fcount(static_cast<std::size_t>(blocks), 0);
  for (int b : p.feature_block) ++fcount[static_cast<std::size_t>(b)];
  p.token_block.assign(static_cast<std::size_t>(n), 0);
  for (Eigen::Index t = 0; t < n; ++t) {
    std::vector<double> s(static_cast<std::size_t>(blocks), 0.0);
    for (Eigen::Index j = 0; j < F; ++j) s[static_cast<std::size_t>(p.feature_block[static_cast<std::size_t>(j)])] += absA(t, j);
    int best = 0;
    double bv = -1.0;
    for (int b = 0; b < blocks; ++b) {
      const double v = fcount[static_cast<std::size_t>(b)] ? s[static_cast<std::size_t>(b)] / fcount[static_cast<std::size_t>(b)] : -1.0;
      if (v > bv) bv = v, best = b;
    }
    p.token_block[static_cast<std::size_t>(t)] = best;
  }
  auto order_by = [](const std::vector<int>& lab) {
    std::vector<int> o(lab.size());
    std::iota(o.begin(), o.end(), 0);
    std::stable_sort(o.begin(), o.end(), [&](int a, int b) { return lab[static_cast<std::size_t>(a)] < lab[static_cast<std::size_t>(b)]; });
    return o;
  };
  p.feature_order = order_by(p.feature_block);
  p.token_order = order_by(p.token_block);
  // Percentiles of |a| (ties share the lower rank), as Fig. 1 plots them (outliers would dominate raw values).
  std::vector<double> sorted(absA.data(), absA.data() + absA.size());
  std::sort(sorted.begin(), sorted.end());
  const double denom = std::max<double>(1.0, static_cast<double>(sorted.size() - 1));
  const int R = static_cast<int>(std::min<Eigen::Index>(max_rows, n)), Cc = static_cast<int>(std::min<Eigen::Index>(max_cols, F));
  p.cells.setZero(R, Cc);
  Eigen::MatrixXd cnt = Eigen::MatrixXd::Zero(R, Cc);
  double mass = 0.0, diag_mass = 0.0;
  std::int64_t diag_count = 0;
  for (Eigen::Index r = 0; r < n; ++r) {
    const int t = p.token_order[static_cast<std::size_t>(r)];
    const auto cr = static_cast<Eigen::Index>(r * R / n);
    for (Eigen::Index c = 0; c < F; ++c) {
      const int j = p.feature_order[static_cast<std::size_t>(c)];
      const double v = absA(t, j);
      const double pct = 100.0 * static_cast<double>(std::lower_bound(sorted.begin(), sorted.end(), v) - sorted.begin()) / denom;
      const auto cc = static_cast<Eigen::Index>(c * Cc / F);
      p.cells(cr, cc) += pct;
      cnt(cr, cc) += 1.0;
      mass += v;
      if (p.token_block[static_cast<std::size_t>(t)] == p.feature_block[static_cast<std::size_t>(j)]) diag_mass += v, ++diag_count;
    }
  }
  p.cells = p.cells.cwiseQuotient(cnt.cwiseMax(1.0));
  p.diagonal_mass = mass > 0.0 ? diag_mass / mass : 0.0;
  p.diagonal_share = static_cast<double>(diag_count) / static_cast<double>(n * F);
  return p;
}

namespace {

/// A header cell: a name, i.e. text that is not a number and does not start like one (a digit,
/// a sign or a point). "1e400", "1.5x" or "nan" are bad numbers, not names.
bool is_name(const std::string& c) {
  if (c.empty()) return false;
  const char f = c[0];
  if ((f >= '0' && f <= '9') || f == '+' || f == '-' || f == '.') return false;
  char* end = nullptr;
  (void)std::strtod(c.c_str(), &end);
  return end != c.c_str() + c.size();
}

}  // namespace

Eigen::MatrixXd read_activation_csv(const std::string& path) {
  // The checked reader of user-named files: a FIFO, a device (/dev/zero) or a directory is refused
  // unread, and a file over the size limit is cut off while reading.
  std::string text = read_input_file(path, kMaxActivationBytes, "an activation CSV", "params.activations");
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);  // a UTF-8 byte-order mark (spreadsheet exports)
  std::vector<std::vector<double>> rows;
  int lineno = 0;
  std::size_t width = 0;
  bool first_line = true;
  const auto fail = [&](int line, const std::string& why) { throw InputError(path, line, "params.activations", why); };
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cells;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) {
      const auto b = cell.find_first_not_of(" \t"), e = cell.find_last_not_of(" \t");
      cells.push_back(b == std::string::npos ? std::string() : cell.substr(b, e - b + 1));
    }
    if (line.back() == ',') cells.emplace_back();
    // The first line is a header when every cell is a name (by its content, not by whether it
    // parses: a first data row with one bad cell is refused, not skipped).
    const bool header = first_line && std::all_of(cells.begin(), cells.end(), is_name);
    first_line = false;
    if (header) continue;
    std::vector<double> row;
    for (std::size_t j = 0; j < cells.size(); ++j) {
      const std::string& c = cells[j];
      const std::string at = fmt::format("column {}: ", j + 1);
      if (c.empty()) fail(lineno, at + "empty cell");
      errno = 0;
      char* end = nullptr;
      const double v = std::strtod(c.c_str(), &end);
      if (end != c.c_str() + c.size()) fail(lineno, at + fmt::format("'{}' is not a number", c.substr(0, 40)));
      if (errno == ERANGE && std::abs(v) > 1.0) fail(lineno, at + fmt::format("'{}' is out of the double range", c.substr(0, 40)));
      if (!std::isfinite(v)) fail(lineno, at + fmt::format("'{}' is not a finite number", c.substr(0, 40)));
      row.push_back(v);
    }
    if (rows.empty()) width = row.size();
    if (row.size() != width) fail(lineno, fmt::format("{} columns where the first row has {}", row.size(), width));
    rows.push_back(std::move(row));
  }
  if (rows.size() < 2 || width < 2)
    fail(lineno, fmt::format("needs at least 2 rows (tokens) and 2 columns (features), got {} x {}", rows.size(), width));
  Eigen::MatrixXd A(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(width));
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < width; ++j) A(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = rows[i][j];
  return A;
}

Eigen::MatrixXd planted_activations(int tokens, int blocks, int block_features, double shift, double noise, std::uint64_t seed) {
  const RandomStream rs(seed, StreamTag::moe_test_data, 0);
  const int F = blocks * block_features;
  Eigen::MatrixXd A(tokens, F);
  for (int t = 0; t < tokens; ++t)
    for (int j = 0; j < F; ++j) {
      const double z = rs.normal(static_cast<std::uint64_t>(t) * F + j);
      A(t, j) = (j / block_features == t % blocks) ? std::abs(z) + shift : noise * std::abs(z);
    }
  return A;
}

namespace {

/// Hidden activations relu(W1 X + b1) of a dense MLP (m = k = 1).
Eigen::MatrixXd hidden(const MoeModel<double>& m, const Eigen::MatrixXd& X) {
  const auto& p = m.params();
  Eigen::MatrixXd H = m.w1(p, 0) * X;
  if (m.shape().expert_bias) H.colwise() += m.b1(p, 0);
  return H.cwiseMax(0.0);
}

}  // namespace

MoeficationRun run_moefication_trial(const MoeficationSpec& spec, const RngKey& key, std::int64_t trial) {
  const ModularTask& task = spec.task;
  task.validate();
  MOELAB_EXPECT(task.classes >= 2 && spec.experts >= 1 && spec.experts <= spec.hidden, "run_moefication_trial: sizes");
  const ModularTeacher teacher(task, key.with("teacher", trial).seed());
  const std::uint64_t data_seed = key.with("data", trial).seed();
  MoeShape ds;
  ds.m = ds.k = 1, ds.w = spec.hidden, ds.d = task.d(), ds.d_out = task.classes;
  ds.expert = ExpertKind::mlp, ds.expert_bias = true;
  MoeModel<double> dense(ds);
  init_pytorch(dense, key.with("dense", trial).seed());
  AdamWConfig opt;
  opt.lr = spec.lr, opt.total_steps = spec.steps, opt.weight_decay = spec.weight_decay;
  AdamWState<double> st;
  st.reset(dense.params().size());
  ForwardCache<double> cache;
  Eigen::MatrixXd Y, dY;
  Eigen::VectorXd grad;
  for (std::int64_t t = 0; t < spec.steps; ++t) {
    const ModularSample s = teacher.draw(spec.batch, spec.train_sigma, data_seed, StreamTag::moe_train_data, static_cast<std::uint64_t>(t));
    forward(dense, s.noisy, nullptr, cache, Y);
    cross_entropy_loss(Y, s.label, &dY);
    backward(dense, cache, dY, grad);
    adamw_update(dense.params(), grad, st, opt);
  }
  // MoEfication (Zhang et al. 2021, as the noisy paper's Sec. 5 applies it): cluster the hidden
  // neurons by co-activation (cosine of their activation vectors over clean calibration inputs).
  const ModularSample cal = teacher.draw(spec.calibration, 0.0, data_seed, StreamTag::moe_test_data, 1);
  const Eigen::MatrixXd H = hidden(dense, cal.clean);  // hidden x n
  Eigen::MatrixXd feat = H.transpose();                // n x hidden: a column per neuron
  for (Eigen::Index h = 0; h < feat.cols(); ++h) {
    const double nrm = feat.col(h).norm();
    if (nrm > 0.0) feat.col(h) /= nrm;
  }
  std::vector<int> group;
  if (spec.split == MoefiedSplit::coactivation) {
    group = kmeans(feat, spec.experts, key.with("cluster", trial).seed());
  } else {
    // MoEfication's parameter-clustering split (Zhang et al. 2021, Sec. 3.1; noisy App. B.2: k-means
    // over the feature dimensions): neurons with similar first-layer rows [w_h, b_h] (unit-normed,
    // so the clustering is by direction) share an expert. Plain k-means (MoEfication balances the
    // expert sizes; here the sizes come out as the clustering gives them).
    const auto& p0 = dense.params();
    Eigen::MatrixXd rows(task.d() + 1, spec.hidden);
    rows.topRows(task.d()) = dense.w1(p0, 0).transpose();
    rows.row(task.d()) = dense.b1(p0, 0).transpose();
    for (Eigen::Index h = 0; h < rows.cols(); ++h) {
      const double nrm = rows.col(h).norm();
      if (nrm > 0.0) rows.col(h) /= nrm;
    }
    group = kmeans(rows, spec.experts, key.with("cluster", trial).seed());
  }
  // Router: expert e's centroid = the calibration inputs weighted by the expert's activation mass;
  // an input goes to the s experts whose centroids are nearest (Euclidean).
  const int E = spec.experts;
  Eigen::MatrixXd mass = Eigen::MatrixXd::Zero(E, H.cols());
  for (Eigen::Index h = 0; h < H.rows(); ++h) mass.row(group[static_cast<std::size_t>(h)]) += H.row(h);
  Eigen::MatrixXd centroid(task.d(), E);
  for (int e = 0; e < E; ++e) {
    const double tot = mass.row(e).sum();
    centroid.col(e) = tot > 0.0 ? Eigen::VectorXd(cal.clean * mass.row(e).transpose() / tot) : Eigen::VectorXd::Zero(task.d());
  }
  MoeficationRun out;
  // Block purity: each neuron's dominant block (largest mean activation over that block's inputs).
  {
    Eigen::MatrixXd bm = Eigen::MatrixXd::Zero(H.rows(), task.blocks);
    std::vector<int> bc(static_cast<std::size_t>(task.blocks), 0);
    for (Eigen::Index i = 0; i < H.cols(); ++i) bm.col(cal.block[static_cast<std::size_t>(i)]) += H.col(i), ++bc[static_cast<std::size_t>(cal.block[static_cast<std::size_t>(i)])];
    std::vector<int> dom(static_cast<std::size_t>(H.rows()));
    for (Eigen::Index h = 0; h < H.rows(); ++h) {
      Eigen::Index b = 0;
      Eigen::RowVectorXd r = bm.row(h);
      for (int z = 0; z < task.blocks; ++z) r[z] /= std::max(1, bc[static_cast<std::size_t>(z)]);
      r.maxCoeff(&b);
      dom[static_cast<std::size_t>(h)] = static_cast<int>(b);
    }
    std::int64_t agree = 0;
    for (int e = 0; e < E; ++e) {
      std::vector<int> votes(static_cast<std::size_t>(task.blocks), 0);
      for (Eigen::Index h = 0; h < H.rows(); ++h)
        if (group[static_cast<std::size_t>(h)] == e) ++votes[static_cast<std::size_t>(dom[static_cast<std::size_t>(h)])];
      agree += *std::max_element(votes.begin(), votes.end());
    }
    out.block_purity = static_cast<double>(agree) / static_cast<double>(H.rows());
  }
  const auto& p = dense.params();
  const Eigen::MatrixXd W1 = dense.w1(p, 0), W2 = dense.w2(p, 0);
  const Eigen::VectorXd b1 = dense.b1(p, 0), b2 = dense.b2(p, 0);
  // Similarity selection: the expert's mean first-layer row and bias.
  Eigen::MatrixXd mean_w = Eigen::MatrixXd::Zero(task.d(), E);
  Eigen::VectorXd mean_b = Eigen::VectorXd::Zero(E);
  {
    std::vector<int> size(static_cast<std::size_t>(E), 0);
    for (Eigen::Index h = 0; h < W1.rows(); ++h) {
      const int e = group[static_cast<std::size_t>(h)];
      mean_w.col(e) += W1.row(h).transpose(), mean_b[e] += b1[h], ++size[static_cast<std::size_t>(e)];
    }
    for (int e = 0; e < E; ++e)
      if (size[static_cast<std::size_t>(e)]) mean_w.col(e) /= size[static_cast<std::size_t>(e)], mean_b[e] /= size[static_cast<std::size_t>(e)];
  }
  // MoEfication's MLP selection (Zhang et al. 2021, Sec. 3.2): a two-layer ReLU net x -> R^E regresses
  // every expert's clean activation mass (scaled by the calibration mean mass, so the targets are O(1)),
  // trained on fresh clean inputs; at test time it reads the (noisy) input.
  std::optional<MoeModel<double>> router_net;
  if (spec.router == MoefiedRouter::mlp) {
    MoeShape rs;
    rs.m = rs.k = 1, rs.w = spec.router_width, rs.d = task.d(), rs.d_out = E;
    rs.expert = ExpertKind::mlp, rs.expert_bias = true;
    router_net.emplace(rs);
    init_pytorch(*router_net, key.with("router", trial).seed());
    const double scale = std::max(mass.mean(), 1e-12);
    AdamWConfig ropt;
    ropt.lr = spec.lr, ropt.total_steps = spec.router_steps;
    AdamWState<double> rst;
    rst.reset(router_net->params().size());
    const std::uint64_t rseed = key.with("router_data", trial).seed();
    Eigen::MatrixXd target, dT;
    for (std::int64_t t = 0; t < spec.router_steps; ++t) {
      const ModularSample s = teacher.draw(spec.batch, 0.0, rseed, StreamTag::moe_train_data, static_cast<std::uint64_t>(t));
      const Eigen::MatrixXd Hb = hidden(dense, s.clean);
      target = Eigen::MatrixXd::Zero(E, Hb.cols());
      for (Eigen::Index h = 0; h < Hb.rows(); ++h) target.row(group[static_cast<std::size_t>(h)]) += Hb.row(h);
      target /= scale;
      forward(*router_net, s.clean, nullptr, cache, Y);
      mse_loss<double>(Y, target, &dT);
      backward(*router_net, cache, dT, grad);
      adamw_update(router_net->params(), grad, rst, ropt);
    }
  }
  // Hidden-site noise (NoiseSite::hidden): neuron h's scale s_h = the standard deviation of its clean
  // pre-activation over the calibration inputs; the draws z_h are the same for every sigma (scaled).
  Eigen::VectorXd pre_sd;
  Eigen::MatrixXd hidden_z;
  if (spec.noise_site == NoiseSite::hidden) {
    const Eigen::MatrixXd cpre = (W1 * cal.clean).colwise() + b1;
    const Eigen::VectorXd mu = cpre.rowwise().mean();
    pre_sd = ((cpre.colwise() - mu).array().square().rowwise().sum() / static_cast<double>(std::max<Eigen::Index>(1, cpre.cols() - 1))).sqrt();
    const RandomStream rz(key.with("hidden_noise", trial).seed(), StreamTag::moe_test_data, 0);
    hidden_z.resize(spec.hidden, spec.test_size);
    rz.fill_normal(0, static_cast<std::uint64_t>(hidden_z.size()), hidden_z.data());
  }
  const std::size_t S = spec.sigmas.size();
  out.dense.assign(S, 0.0);
  out.moe.assign(spec.active.size() * S, 0.0);
  out.kept_mass.assign(spec.active.size() * S, 0.0);
  out.router_agreement.assign(spec.active.size() * S, 0.0);
  // Experts ranked by a score per input (smaller = chosen first); `on` gets the first s.
  auto select = [&](const Eigen::MatrixXd& score, Eigen::Index i, int s, std::vector<int>& idx, std::vector<char>& on) {
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](int x, int y) { return score(x, i) < score(y, i); });
    std::fill(on.begin(), on.end(), 0);
    for (int r = 0; r < std::min(s, E); ++r) on[static_cast<std::size_t>(idx[static_cast<std::size_t>(r)])] = 1;
  };
  for (std::size_t si = 0; si < S; ++si) {
    const bool at_input = spec.noise_site == NoiseSite::input;
    const ModularSample test = teacher.draw(spec.test_size, at_input ? spec.sigmas[si] : 0.0, data_seed, StreamTag::moe_test_data, 0);
    Eigen::MatrixXd pre = (W1 * test.noisy).colwise() + b1;
    if (!at_input) pre += spec.sigmas[si] * (pre_sd.asDiagonal() * hidden_z);
    const Eigen::MatrixXd act = pre.cwiseMax(0.0);
    out.dense[si] = accuracy((W2 * act).colwise() + b2, test.label);
    // The ideal selection's mass on clean inputs (the reference of kept_mass and router_agreement).
    const Eigen::MatrixXd clean_act = ((W1 * test.clean).colwise() + b1).cwiseMax(0.0);
    Eigen::MatrixXd clean_mass = Eigen::MatrixXd::Zero(E, clean_act.cols());
    for (Eigen::Index h = 0; h < clean_act.rows(); ++h) clean_mass.row(group[static_cast<std::size_t>(h)]) += clean_act.row(h);
    const Eigen::MatrixXd ideal_score = -clean_mass;
    // Smaller score = chosen first. Centroid: ||x - c_e||^2 ranks as ||c_e||^2 - 2 c_e' x.
    Eigen::MatrixXd score;
    if (spec.router == MoefiedRouter::centroid) {
      score = (-2.0 * centroid.transpose() * test.noisy).colwise() + centroid.colwise().squaredNorm().transpose();
    } else if (spec.router == MoefiedRouter::similarity) {
      score = -((mean_w.transpose() * test.noisy).colwise() + mean_b);
    } else if (spec.router == MoefiedRouter::mlp) {
      score = -evaluate(*router_net, test.noisy, nullptr);
    } else if (spec.router == MoefiedRouter::oracle) {
      score = ideal_score;
    } else {
      score = Eigen::MatrixXd::Zero(E, act.cols());
      for (Eigen::Index h = 0; h < act.rows(); ++h) score.row(group[static_cast<std::size_t>(h)]) -= act.row(h);
    }
    const double total_clean_mass = clean_mass.sum();
    for (std::size_t ai = 0; ai < spec.active.size(); ++ai) {
      const int s = spec.active[ai];
      Eigen::MatrixXd a = act;
      std::vector<int> idx(static_cast<std::size_t>(E));
      std::vector<char> on(static_cast<std::size_t>(E)), ideal(static_cast<std::size_t>(E));
      double kept = 0.0;
      std::int64_t agree = 0;
      for (Eigen::Index i = 0; i < a.cols(); ++i) {
        select(score, i, s, idx, on);
        for (Eigen::Index h = 0; h < a.rows(); ++h)
          if (!on[static_cast<std::size_t>(group[static_cast<std::size_t>(h)])]) a(h, i) = 0.0;
        select(ideal_score, i, s, idx, ideal);
        for (int e = 0; e < E; ++e)
          if (on[static_cast<std::size_t>(e)]) kept += clean_mass(e, i), agree += ideal[static_cast<std::size_t>(e)];
      }
      out.moe[ai * S + si] = accuracy((W2 * a).colwise() + b2, test.label);
      out.kept_mass[ai * S + si] = total_clean_mass > 0.0 ? kept / total_clean_mass : 1.0;
      out.router_agreement[ai * S + si] = static_cast<double>(agree) / (static_cast<double>(std::min(s, E)) * static_cast<double>(a.cols()));
    }
  }
  return out;
}

}  // namespace moelab::moe
