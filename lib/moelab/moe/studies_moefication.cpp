// Studies moe.moefication (noisy paper, Sec. 5, Figs. 4, 5, 11 on a synthetic network) and
// moe.block_discovery (its Fig. 1 / App. B.1 picture for any activation matrix). The experiment
// code is moefication.hpp.
#include <cmath>
#include <filesystem>
#include <vector>

#include <fmt/format.h>

#include "moelab/core/parallel.hpp"
#include "moelab/core/stats.hpp"
#include "moelab/moe/moefication.hpp"
#include "moelab/scenario/study.hpp"

namespace moelab::moe {

StudyDef moefication_study() {
  StudyDef d;
  d.name = "moe.moefication";
  d.summary = "MoEfy a dense two-layer ReLU net trained on planted modular data (co-activation clusters, nearest-centroid routing): accuracy vs input noise, dense vs MoEfied at several sparsity levels";
  d.figure = "noisy paper, Sec. 5, Figs. 4, 5, 11 (shape), on a synthetic network";
  d.trial_unit = "trained networks (seeds)";
  d.min_trials = 2;
  d.params = {
      integer("params.blocks", "k: planted blocks (p_i = 1/k)").in(1, 1024).or_default(4),
      integer("params.block_dim", "b: features per block (d = k b)").in(1, 4096).or_default(8),
      integer("params.classes", "classes C").in(2, 1024).or_default(4),
      integer("params.teacher_width", "width of each block's random labelling net").in(1, 1 << 14).or_default(16),
      integer("params.hidden", "H: hidden width of the dense network").in(1, 1 << 16).or_default(64),
      integer("params.experts", "E: neuron clusters (experts)").in(1, 1 << 16).or_default(8),
      integer_list("params.active", "sparsity levels: active experts s per input (each in 1..E; s = E is the dense net)"),
      real_list("params.sigmas", "test input-noise standard deviations (each >= 0)"),
      choice("params.router", {"centroid", "similarity", "activation", "mlp", "oracle"},
             "centroid: nearest activation-weighted input centroid; similarity: largest x' (mean weight row) + mean bias "
             "(MoEfication's similarity selection); activation: largest expert activation mass (the ideal selection); "
             "mlp: MoEfication's MLP selection (a two-layer ReLU net trained on clean inputs to predict each expert's activation mass); "
             "oracle: the ideal selection on the clean input applied to the noisy activations (the theory's correct routing; not realizable)")
          .or_default("centroid"),
      integer("params.router_width", "mlp router: hidden width").in(1, 1 << 16).or_default(64),
      integer("params.router_steps", "mlp router: AdamW steps of `batch` fresh clean inputs (learning rate params.lr)").in(1, std::int64_t{1} << 30).or_default(1000),
      choice("params.split", {"coactivation", "weights"},
             "how neurons become experts: coactivation: k-means on unit-normed activation vectors over the calibration inputs; "
             "weights: k-means on unit-normed first-layer rows [w_h, b_h] (MoEfication's parameter clustering, the paper's App. B.2)")
          .or_default("coactivation"),
      choice("params.noise_site", {"input", "hidden"},
             "input: sigma N(0, 1) on every input coordinate (App. B.3), the router reads the noisy input; hidden: sigma s_h N(0, 1) on "
             "each hidden pre-activation, s_h its clean standard deviation (feature noise, noisy Eq. 1 on the activations), the input stays clean")
          .or_default("input"),
      real("params.train_sigma", "input noise while training the dense net").nonnegative().at_most(100.0).or_default(0.0),
      integer("params.steps", "AdamW steps (online)").in(1, std::int64_t{1} << 30).or_default(2000),
      integer("params.batch", "samples per step").in(1, 1 << 20).or_default(256),
      real("params.lr", "AdamW learning rate (cosine decay to 0)").positive().below(10.0).or_default(1e-2),
      real("params.weight_decay", "AdamW decoupled weight decay").nonnegative().or_default(0.0),
      integer("params.calibration", "clean inputs for the co-activation clustering and the centroids").in(2, 1 << 22).or_default(4096),
      integer("params.test_samples", "test inputs (the same inputs and noise draws, scaled, for every sigma)").in(1, 1 << 24).or_default(8192),
  };
  d.columns = {{"model", "dense or moefied"},
               {"active", "active experts s (0 for dense)"},
               {"experts", "E"},
               {"active_fraction", "s / E (1 for dense)"},
               {"sigma", "test input-noise standard deviation"},
               {"accuracy", "test accuracy with noise sigma, mean over seeds"},
               {"accuracy_se", "its standard error"},
               {"clean_accuracy", "test accuracy at sigma = 0 (same model), mean over seeds"},
               {"drop", "clean accuracy - accuracy with noise, mean over seeds"},
               {"drop_se", "its standard error"},
               {"gain_vs_dense", "accuracy - dense accuracy at this sigma, paired over seeds, mean"},
               {"gain_vs_dense_se", "its standard error"},
               {"block_purity", "share of neurons whose cluster's majority dominant block is theirs, mean over seeds"},
               {"kept_mass", "share of the clean activation mass held by the selected experts (1 for dense), mean over seeds"},
               {"ideal_agreement", "share of the selected experts that the ideal clean selection also picks (1 for dense), mean over seeds"},
               {"trials", "trained networks (seeds)"}};
  struct Point {
    MoeficationSpec spec;
  };
  StudyDef def = define_trial_study<Point, MoeficationRun>(
      std::move(d),
      [](const PointParams& p) {
        Point pt;
        auto& s = pt.spec;
        s.task.blocks = p.small("params.blocks");
        s.task.block_dim = p.small("params.block_dim");
        s.task.classes = p.small("params.classes");
        s.task.teacher_width = p.small("params.teacher_width");
        if (static_cast<std::int64_t>(s.task.blocks) * s.task.block_dim > (1 << 16))
          p.fail("params.block_dim", "d = blocks x block_dim exceeds 65536");
        s.hidden = p.small("params.hidden");
        s.experts = p.small("params.experts");
        if (s.experts > s.hidden) p.fail("params.experts", fmt::format("{} experts for {} hidden neurons", s.experts, s.hidden));
        for (auto a : p.integer_list("params.active")) {
          if (a < 1 || a > s.experts) p.fail("params.active", fmt::format("active level {} outside 1..{}", a, s.experts));
          s.active.push_back(static_cast<int>(a));
        }
        if (s.active.empty()) p.fail("params.active", "give at least one sparsity level");
        s.sigmas = p.real_list("params.sigmas");
        if (s.sigmas.empty()) p.fail("params.sigmas", "give at least one noise level");
        bool has_zero = false;
        for (double v : s.sigmas) {
          if (!(v >= 0.0 && v <= 100.0)) p.fail("params.sigmas", fmt::format("noise level {} outside [0, 100]", v));
          has_zero = has_zero || v == 0.0;
        }
        if (!has_zero) s.sigmas.insert(s.sigmas.begin(), 0.0);  // the clean accuracy the drop is taken from
        const std::string router = p.text("params.router");
        s.router = router == "similarity"   ? MoefiedRouter::similarity
                   : router == "activation" ? MoefiedRouter::activation
                   : router == "mlp"        ? MoefiedRouter::mlp
                   : router == "oracle"     ? MoefiedRouter::oracle
                                            : MoefiedRouter::centroid;
        s.router_width = p.small("params.router_width");
        s.router_steps = p.integer("params.router_steps");
        s.split = p.text("params.split") == "weights" ? MoefiedSplit::weights : MoefiedSplit::coactivation;
        s.noise_site = p.text("params.noise_site") == "hidden" ? NoiseSite::hidden : NoiseSite::input;
        s.train_sigma = p.real("params.train_sigma");
        s.steps = p.integer("params.steps");
        s.batch = p.integer("params.batch");
        s.lr = p.real("params.lr");
        s.weight_decay = p.real("params.weight_decay");
        s.calibration = p.integer("params.calibration");
        s.test_size = p.integer("params.test_samples");
        return pt;
      },
      [](const Point& pt, const RunContext& ctx, std::int64_t t) { return run_moefication_trial(pt.spec, ctx.key, t); },
      [](const Point& pt, std::span<const MoeficationRun> runs, const RunContext& ctx, RowSink& rows) {
        const auto& s = pt.spec;
        const std::size_t S = s.sigmas.size();
        std::size_t zero = 0;
        for (std::size_t i = 0; i < S; ++i)
          if (s.sigmas[i] == 0.0) zero = i;
        Welford purity;
        for (const auto& r : runs) purity.add(r.block_purity);
        auto emit = [&](const char* model, int active, auto acc_of, auto kept_of, auto agree_of) {
          for (std::size_t si = 0; si < S; ++si) {
            Welford acc, clean, drop, gain, kept, agree;
            for (const auto& r : runs) {
              const double a = acc_of(r, si), c = acc_of(r, zero);
              acc.add(a), clean.add(c), drop.add(c - a), gain.add(a - r.dense[si]);
              kept.add(kept_of(r, si)), agree.add(agree_of(r, si));
            }
            rows.row()
                .set("model", model)
                .set("active", active)
                .set("experts", s.experts)
                .set("active_fraction", active ? static_cast<double>(active) / s.experts : 1.0)
                .set("sigma", s.sigmas[si])
                .set("accuracy", acc.mean())
                .set("accuracy_se", acc.standard_error())
                .set("clean_accuracy", clean.mean())
                .set("drop", drop.mean())
                .set("drop_se", drop.standard_error())
                .set("gain_vs_dense", gain.mean())
                .set("gain_vs_dense_se", gain.standard_error())
                .set("block_purity", purity.mean())
                .set("kept_mass", kept.mean())
                .set("ideal_agreement", agree.mean())
                .set("trials", ctx.trials);
          }
        };
        const auto one = [](const MoeficationRun&, std::size_t) { return 1.0; };
        emit("dense", 0, [](const MoeficationRun& r, std::size_t si) { return r.dense[si]; }, one, one);
        for (std::size_t ai = 0; ai < s.active.size(); ++ai)
          emit(
              "moefied", s.active[ai], [&](const MoeficationRun& r, std::size_t si) { return r.moe[ai * S + si]; },
              [&](const MoeficationRun& r, std::size_t si) { return r.kept_mass[ai * S + si]; },
              [&](const MoeficationRun& r, std::size_t si) { return r.router_agreement[ai * S + si]; });
      });
  set_cost<Point>(def, [](const Point& pt, std::int64_t trials) {
    const auto& s = pt.spec;
    const double dim = s.task.d(), H = s.hidden, C = s.task.classes;
    const double params = H * (dim + 1 + C) + C;
    const double n = std::max<double>(static_cast<double>(s.calibration), static_cast<double>(s.test_size));
    const double per = 8.0 * (5.0 * params + n * (3.0 * dim + 5.0 * H + 3.0 * s.experts) + static_cast<double>(s.batch) * (3.0 * dim + 3.0 * H));
    const double running = std::min(static_cast<double>(num_threads()), static_cast<double>(trials));
    const double work = static_cast<double>(trials) *
                        (6.0 * params * static_cast<double>(s.steps * s.batch) +
                         static_cast<double>(s.test_size) * static_cast<double>(s.sigmas.size()) *
                             (2.0 * params * (2.0 + static_cast<double>(s.active.size())) + 40.0 * s.experts * static_cast<double>(s.active.size()))) +
                        (s.router == MoefiedRouter::mlp
                             ? static_cast<double>(trials) * 6.0 * (static_cast<double>(s.router_width) * (dim + 1 + s.experts) + 2.0 * params) *
                                   static_cast<double>(s.router_steps * s.batch)
                             : 0.0);
    return StudyCost{running * per, work};
  });
  return def;
}

StudyDef block_discovery_study() {
  StudyDef d;
  d.name = "moe.block_discovery";
  d.summary = "Fig. 1 picture: cosine affinity of features, spectral clustering into blocks, activation percentiles reordered by block (a CSV activation matrix, or a planted one)";
  d.figure = "noisy paper, Fig. 1 and App. B.1 (Figs. 7-10)";
  d.trial_unit = "";
  d.params = {
      text("params.activations", "CSV of activations (one token per line, one feature per column, numbers; an optional header line); absent: a planted matrix").optional(),
      integer("params.blocks", "blocks to find (spectral clustering)").in(1, 4096).or_default(4),
      integer("params.tokens", "planted matrix: tokens").in(2, 1 << 16).or_default(512),
      integer("params.block_features", "planted matrix: features per block").in(1, 1 << 12).or_default(16),
      real("params.shift", "planted matrix: in-block activations |N(0,1)| + shift").nonnegative().or_default(0.5),
      real("params.noise", "planted matrix: out-of-block activations |N(0, noise^2)|").nonnegative().or_default(0.3),
      integer("params.max_rows", "heat-map rows (token groups)").in(1, 4096).or_default(128),
      integer("params.max_cols", "heat-map columns (feature groups)").in(1, 4096).or_default(128),
  };
  d.columns = {{"row", "heat-map row (tokens ordered by their dominant block)"},
               {"col", "heat-map column (features ordered by block)"},
               {"percentile", "mean percentile of |activation| in the cell (0..100)"},
               {"row_block", "dominant block of the cell's first token"},
               {"col_block", "block of the cell's first feature"},
               {"diagonal_mass", "share of sum |a| in (token block = feature block) entries (the whole matrix)"},
               {"diagonal_share", "share of entries there (what a matrix without blocks gives)"}};
  struct Point {
    std::string file;
    int blocks, tokens, block_features, max_rows, max_cols;
    double shift, noise;
    double rows = 0, cols = 0;  // the matrix's size (for the cost model)
  };
  StudyDef def = define_study<Point>(
      std::move(d),
      [](const PointParams& p) {
        Point pt;
        pt.file = p.has("params.activations") ? p.text("params.activations") : std::string();
        if (p.has("params.activations")) {
          if (pt.file.empty())
            p.fail("params.activations", "is empty; give a CSV path, or leave the key out for the planted matrix");
          // Relative to the scenario file, as [model.covariance] path is (not to the working directory).
          std::filesystem::path f(pt.file);
          if (f.is_relative() && !p.view().file().empty() && p.view().file().front() != '<')
            f = std::filesystem::path(p.view().file()).parent_path() / f;
          pt.file = f.lexically_normal().string();
        }
        pt.blocks = p.small("params.blocks");
        pt.tokens = p.small("params.tokens");
        pt.block_features = p.small("params.block_features");
        pt.shift = p.real("params.shift");
        pt.noise = p.real("params.noise");
        pt.max_rows = p.small("params.max_rows");
        pt.max_cols = p.small("params.max_cols");
        if (!pt.file.empty()) {
          // Read now: a bad file is refused (exit 2) before any point runs.
          const Eigen::MatrixXd A = read_activation_csv(pt.file);
          if (pt.blocks > A.cols())
            p.fail("params.blocks", fmt::format("{} blocks for {} features in '{}'", pt.blocks, A.cols(), pt.file));
          pt.rows = static_cast<double>(A.rows()), pt.cols = static_cast<double>(A.cols());
        } else if (static_cast<std::int64_t>(pt.tokens) * pt.blocks * pt.block_features > (std::int64_t{1} << 26)) {
          p.fail("params.tokens", "planted matrix larger than 2^26 entries");
        }
        if (pt.file.empty()) pt.rows = pt.tokens, pt.cols = static_cast<double>(pt.blocks) * pt.block_features;
        return pt;
      },
      [](const Point& pt, const RunContext& ctx, RowSink& rows) {
        const Eigen::MatrixXd A = pt.file.empty()
                                      ? planted_activations(pt.tokens, pt.blocks, pt.block_features, pt.shift, pt.noise, ctx.key.with("planted").seed())
                                      : read_activation_csv(pt.file);
        const BlockPicture pic = block_picture(A, pt.blocks, ctx.key.with("cluster").seed(), pt.max_rows, pt.max_cols);
        const auto R = pic.cells.rows(), C = pic.cells.cols();
        for (Eigen::Index r = 0; r < R; ++r)
          for (Eigen::Index c = 0; c < C; ++c) {
            const auto tr = static_cast<std::size_t>(r * A.rows() / R), fc = static_cast<std::size_t>(c * A.cols() / C);
            rows.row()
                .set("row", static_cast<std::int64_t>(r))
                .set("col", static_cast<std::int64_t>(c))
                .set("percentile", pic.cells(r, c))
                .set("row_block", pic.token_block[static_cast<std::size_t>(pic.token_order[tr])])
                .set("col_block", pic.feature_block[static_cast<std::size_t>(pic.feature_order[fc])])
                .set("diagonal_mass", pic.diagonal_mass)
                .set("diagonal_share", pic.diagonal_share);
          }
      });
  set_cost<Point>(def, [](const Point& pt, std::int64_t) {
    const double n = pt.rows, F = pt.cols;
    return StudyCost{8.0 * (3.0 * n * F + 3.0 * F * F), 2.0 * n * F * F + 10.0 * F * F * F};
  });
  return def;
}

}  // namespace moelab::moe
