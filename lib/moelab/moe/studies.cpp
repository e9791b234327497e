// The moe topic's studies (scenario/study.hpp): moe.teacher_student, the granularity paper's
// teacher-student experiments (Sec. 4, Figs. 2-5, App. D) on trained MoEs.
#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "moelab/core/stats.hpp"
#include "moelab/moe/granularity_experiment.hpp"
#include "moelab/scenario/study.hpp"

namespace moelab::moe {

namespace {

StudyDef teacher_student_study() {
  StudyDef d;
  d.name = "moe.teacher_student";
  d.summary = "train a student (m', k')-MoE on a random teacher (m, k)-MoE (N(0, I_d) inputs, MSE, AdamW + cosine); normalized test MSE";
  d.figure = "granularity paper, Sec. 4, Figs. 2-5 and App. D";
  d.trial_unit = "training runs (seeds)";
  d.params = {
      integer("params.d", "input and output dimension (the paper: 256)").in(1, 1 << 14).or_default(32),
      integer("params.teacher_k", "active experts of the teacher").in(1, 4096),
      integer("params.teacher_m", "experts of the teacher (default 2 teacher_k)").in(1, 1 << 16).optional(),
      integer("params.teacher_active_neurons", "k w of the teacher (the paper: 256 = d); expert width w = round(k w / k)").in(1, 1 << 20),
      integer("params.student_k", "active experts of the student").in(1, 4096),
      integer("params.student_m", "experts of the student (default 2 student_k student_size)").in(1, 1 << 16).optional(),
      integer("params.student_size", "student total size relative to a (2k')e(k')a student: student_m = 2 student_k student_size (the paper's Figs. 3 and 5: 1, 2, 4, 8, 16); excludes student_m")
          .in(1, 1 << 12)
          .optional(),
      integer("params.student_active_neurons", "k' w' of the student (the paper: 320 = 1.25 k w); w' = round(k' w' / k')").in(1, 1 << 20),
      boolean("params.student_router_bias", "a trainable bias on the student's routing logits (the paper's Fig. 3)").or_default(false),
      real_list("params.learning_rates", "AdamW learning rates tried per run; the best final test error is kept (the paper: 1e-2, 1e-3)"),
      integer("params.samples", "training samples per run (the paper: about 26M)").in(1, std::int64_t{1} << 40).unit("samples"),
      integer("params.batch", "samples per optimizer step (the paper: 2048)").in(1, 1 << 20).or_default(256),
      integer("params.train_size", "0: fresh samples every step (online); else a fixed training set reshuffled every epoch")
          .in(0, std::int64_t{1} << 30)
          .or_default(0),
      integer("params.test_samples", "test inputs for the normalized test MSE").in(1, 1 << 24).or_default(8192),
      real("params.weight_decay", "AdamW decoupled weight decay").nonnegative().or_default(0.0),
      choice("params.precision", {"float32", "float64"}, "scalar type of training").or_default("float32"),
  };
  d.columns = {{"teacher", "teacher architecture (me ka)"},
               {"student", "student architecture"},
               {"d", "dimension"},
               {"teacher_m", "teacher experts"},
               {"teacher_k", "teacher active experts (granularity)"},
               {"teacher_w", "teacher expert width"},
               {"student_m", "student experts"},
               {"student_k", "student active experts (granularity)"},
               {"student_w", "student expert width"},
               {"granularity_ratio", "student_k / teacher_k"},
               {"student_parameters", "student parameters (router included)"},
               {"student_size", "student parameters / teacher parameters (the paper's Figs. 3, 5 x-axis, up to the 25% overparametrization)"},
               {"student_active_parameters", "student parameters used per input"},
               {"samples", "training samples per run"},
               {"steps", "optimizer steps per run"},
               {"nmse_mean", "normalized test MSE (test MSE / E||teacher(x)||^2), best learning rate, mean over seeds"},
               {"nmse_std_error", "its standard error over seeds"},
               {"nmse_min", "smallest over seeds"},
               {"nmse_max", "largest over seeds"},
               {"init_nmse_mean", "the student before training, mean over seeds"},
               {"best_lr_mode", "learning rate that was best most often"},
               {"trials", "training runs (seeds)"}};
  struct Point {
    GranularitySpec spec;
  };
  StudyDef def = define_trial_study<Point, GranularityRun>(
      std::move(d),
      [](const PointParams& p) {
        const int dim = p.small("params.d");
        const int tk = p.small("params.teacher_k"), sk = p.small("params.student_k");
        const int tm = p.has("params.teacher_m") ? p.small("params.teacher_m") : 2 * tk;
        if (p.has("params.student_m") && p.has("params.student_size"))
          p.fail("params.student_size", "give student_m or student_size, not both");
        // Figs. 3, 5: relative size s = total student parameters over those of a (2k')e(k')a student.
        const int sm = p.has("params.student_m") ? p.small("params.student_m")
                                                 : 2 * sk * (p.has("params.student_size") ? p.small("params.student_size") : 1);
        const int tn = p.small("params.teacher_active_neurons"), sn = p.small("params.student_active_neurons");
        if (tk > tm) p.fail("params.teacher_k", fmt::format("teacher_k = {} exceeds teacher_m = {}", tk, tm));
        if (sk > sm) p.fail("params.student_k", fmt::format("student_k = {} exceeds student_m = {}", sk, sm));
        if (tn < tk) p.fail("params.teacher_active_neurons", fmt::format("{} neurons for {} active experts", tn, tk));
        if (sn < sk) p.fail("params.student_active_neurons", fmt::format("{} neurons for {} active experts", sn, sk));
        Point pt;
        pt.spec.teacher = granularity_shape(tm, tk, tn, dim, false);
        pt.spec.student = granularity_shape(sm, sk, sn, dim, p.boolean("params.student_router_bias"));
        pt.spec.learning_rates = p.real_list("params.learning_rates");
        if (pt.spec.learning_rates.empty()) p.fail("params.learning_rates", "give at least one learning rate");
        for (double lr : pt.spec.learning_rates)
          if (!(lr > 0.0 && lr < 10.0)) p.fail("params.learning_rates", fmt::format("learning rate {} outside (0, 10)", lr));
        pt.spec.samples = p.integer("params.samples");
        pt.spec.batch = p.integer("params.batch");
        pt.spec.train_size = p.integer("params.train_size");
        pt.spec.test_size = p.integer("params.test_samples");
        pt.spec.weight_decay = p.real("params.weight_decay");
        pt.spec.precision = p.text("params.precision") == "float64" ? Precision::float64 : Precision::float32;
        pt.spec.backend = p.backend();
        if (p.backend() == Backend::cuda && pt.spec.train_size > 0)
          p.fail("params.train_size", "the CUDA trainer is online only (train_size = 0); run with --backend cpu");
        return pt;
      },
      [](const Point& pt, const RunContext& ctx, std::int64_t t) { return run_granularity_trial(pt.spec, ctx.key, t); },
      [](const Point& pt, std::span<const GranularityRun> runs, const RunContext& ctx, RowSink& rows) {
        Welford w, init;
        double lo = INFINITY, hi = -INFINITY;
        std::map<double, int> lr_count;
        for (const auto& r : runs) {
          w.add(r.best_nmse);
          init.add(r.init_nmse);
          lo = std::min(lo, r.best_nmse);
          hi = std::max(hi, r.best_nmse);
          ++lr_count[r.best_lr];
        }
        double mode = 0.0;
        int best = -1;
        for (const auto& [lr, c] : lr_count)
          if (c > best) best = c, mode = lr;
        const auto& T = pt.spec.teacher;
        const auto& S = pt.spec.student;
        rows.row()
            .set("teacher", T.name())
            .set("student", S.name())
            .set("d", T.d)
            .set("teacher_m", T.m)
            .set("teacher_k", T.k)
            .set("teacher_w", T.w)
            .set("student_m", S.m)
            .set("student_k", S.k)
            .set("student_w", S.w)
            .set("granularity_ratio", static_cast<double>(S.k) / T.k)
            .set("student_parameters", parameter_count(S))
            .set("student_size", static_cast<double>(parameter_count(S)) / static_cast<double>(parameter_count(T)))
            .set("student_active_parameters", active_parameter_count(S))
            .set("samples", pt.spec.steps() * pt.spec.batch)
            .set("steps", pt.spec.steps())
            .set("nmse_mean", w.mean())
            .set("nmse_std_error", runs.size() > 1 ? w.standard_error() : 0.0)
            .set("nmse_min", lo)
            .set("nmse_max", hi)
            .set("init_nmse_mean", init.mean())
            .set("best_lr_mode", mode)
            .set("trials", ctx.trials);
      });
  // --backend cuda: the device trainer (teacher_student_cuda.hpp, kernels/moe_layer.cu); experimental
  // until tests/gpu/moe_gpu_main.cpp has passed on a device (docs/gpu.md).
  def.cuda = CudaPath::experimental;
  // Per running trial (teacher_student.cpp, one learning rate at a time): the teacher's parameters,
  // the student's with its gradient and AdamW moments (4x), the test inputs and targets (d x
  // test_samples, drawn through a double buffer), a fixed training set likewise with its shuffle
  // order, the loss history (one double per step, grown by doubling), and the forward cache of a
  // batch (or of a 4096-sample evaluation chunk): per input k slots of d inputs, w pre-activations
  // and d outputs, kept for backward, and the m routing logits. A step costs ~6 flops per active
  // parameter per sample (forward and backward) plus the teacher's forward (2 per active parameter).
  // The work is in the runner's unit (operations at 1e9 per second and thread): those flops run in
  // OpenBLAS GEMMs at 13-31 GFLOP/s per thread (measured, CPU time of one training run of teacher
  // 8e4a, student 8e4a with kw = d, k'w' = 1.25 d, batch 256: 12.8 GFLOP/s at d = 32, 21 at d = 64,
  // 28 at d = 128, 31 at d = 256, test evaluations included), so the flop count is divided by
  // kFlopsPerOp = 10: the estimate stays 1.3-3x above the measured time (it was 13-31x, ~7x with
  // Eigen's GEMMs).
  set_cost<Point>(def, [](const Point& pt, std::int64_t trials) {
    const auto& sp = pt.spec;
    const double S = sp.precision == Precision::float64 ? 8.0 : 4.0, d = sp.teacher.d;
    const double test = static_cast<double>(sp.test_size), train = static_cast<double>(sp.train_size);
    const double steps = static_cast<double>(sp.steps()), batch = static_cast<double>(sp.batch);
    const double teacher = static_cast<double>(parameter_count(sp.teacher));
    const double student = static_cast<double>(parameter_count(sp.student));
    const auto cache = [&](const MoeShape& sh, double n) {
      return 2.0 * n * (sh.k * (2.0 * sh.d + sh.w) + 3.0 * sh.m + sh.d_out) * S;
    };
    const double inputs = (8.0 + 2.0 * S) * d * test + (train > 0 ? (8.0 + 2.0 * S) * d * train + 8.0 * train : 0.0);
    const double one = S * (teacher + 4.0 * student) + inputs + 16.0 * steps +
                       std::max(cache(sp.student, std::max(batch, 4096.0)), cache(sp.teacher, std::max(batch, 4096.0))) +
                       2.0 * S * d * batch;
    const double running = std::min(static_cast<double>(num_threads()), static_cast<double>(trials));
    const double lrs = static_cast<double>(sp.learning_rates.size());
    const double act_t = static_cast<double>(active_parameter_count(sp.teacher));
    const double act_s = static_cast<double>(active_parameter_count(sp.student));
    const double per_lr = steps * batch * (6.0 * act_s + 2.0 * act_t) + 4.0 * test * (act_s + act_t);
    constexpr double kFlopsPerOp = 10.0;
    return StudyCost{running * one, static_cast<double>(trials) * lrs * per_lr / kFlopsPerOp};
  });
  return def;
}

}  // namespace

// Defined in studies_noisy_b3.cpp and studies_moefication.cpp.
StudyDef noisy_robustness_study();
StudyDef moefication_study();
StudyDef block_discovery_study();

void add_studies(std::vector<StudyDef>& out) {
  out.push_back(teacher_student_study());
  out.push_back(noisy_robustness_study());
  out.push_back(moefication_study());
  out.push_back(block_discovery_study());
}

}  // namespace moelab::moe
