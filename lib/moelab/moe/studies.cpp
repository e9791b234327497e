// The moe topic's studies (scenario/study.hpp): moe.teacher_student, the granularity paper's
// teacher-student experiments (Sec. 4, Figs. 2-5, App. D) on trained MoEs.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <span>
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
  const auto reduce_point = [](const Point& pt, std::span<const GranularityRun> runs, const RunContext& ctx, RowSink& rows) {
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
        if (p.backend() == Backend::cuda && pt.spec.train_size % pt.spec.batch != 0)
          p.fail("params.train_size", fmt::format("the device ensemble needs a training set that is a multiple of the batch ({} is not a multiple "
                                                  "of {}: it has no partial batches); run with --backend cpu",
                                                  pt.spec.train_size, pt.spec.batch));
        return pt;
      },
      [](const Point& pt, const RunContext& ctx, std::int64_t t) { return run_granularity_trial(pt.spec, ctx.key, t); },
      reduce_point);
  // --backend cuda: the device trainer (teacher_student_cuda.hpp, kernels/moe_layer.cu); experimental
  // until tests/gpu/moe_gpu_main.cpp has passed on a device (docs/gpu.md).
  def.cuda = CudaPath::experimental;
  // Every point's trials as one ensemble (moe/ensemble.hpp, run_granularity_ensemble): each trial
  // is a data group whose learning rates share the teacher and every batch; the groups of all points
  // run in parallel, largest first, and a point's row is emitted (and journaled) when its last trial
  // completes. The rows are run's, byte for byte.
  def.run_points = [reduce_point, columns = std::make_shared<const std::vector<ColumnDecl>>(def.columns)](
                       std::span<const std::any* const> points, std::span<const RunContext> ctx, const StudyDef::PointsDone& done) {
    std::vector<GranularityJob> jobs;
    std::vector<std::size_t> point_of;
    std::vector<std::vector<GranularityRun>> results(points.size());
    std::vector<std::int64_t> left(points.size());
    for (std::size_t p = 0; p < points.size(); ++p) {
      const Point& pt = std::any_cast<const Point&>(*points[p]);
      results[p].resize(static_cast<std::size_t>(ctx[p].trials));
      left[p] = ctx[p].trials;
      for (std::int64_t t = 0; t < ctx[p].trials; ++t) jobs.push_back({&pt.spec, ctx[p].key, t}), point_of.push_back(p);
    }
    run_granularity_ensemble(jobs, [&](std::size_t j, const GranularityRun& run) {
      const std::size_t p = point_of[j];
      results[p][static_cast<std::size_t>(jobs[j].trial)] = run;
      if (--left[p] == 0) {
        RowSink rows(*columns);
        reduce_point(std::any_cast<const Point&>(*points[p]), std::span<const GranularityRun>(results[p]), ctx[p], rows);
        done(p, rows.take());
      }
      ctx[p].advance();
    }, ctx.empty() ? std::string() : ctx.front().state_path);
  };
  // At most one trial per thread runs at a time (run_granularity_ensemble), whichever points they
  // belong to: the peak is threads x the largest trial's working set (granularity_job_bytes: teacher,
  // test set, every learning rate's student with gradient, AdamW moments, loss history and step
  // workspace). A step costs ~6 flops per active parameter per sample and learning rate (student
  // forward and backward) plus the teacher's forward once per trial (2 per active parameter;
  // granularity_job_flops). The work is in the runner's unit (operations at 1e9 per second and
  // thread): those flops run in OpenBLAS GEMMs at 13-31 GFLOP/s per thread (measured, CPU time of
  // one training run of teacher 8e4a, student 8e4a with kw = d, k'w' = 1.25 d, batch 256: 12.8
  // GFLOP/s at d = 32, 21 at d = 64, 28 at d = 128, 31 at d = 256, test evaluations included), so the
  // flop count is divided by kFlopsPerOp = 10: the estimate stays 1.3-3x above the measured time.
  set_cost<Point>(def, [](const Point& pt, std::int64_t trials) {
    constexpr double kFlopsPerOp = 10.0;
    return StudyCost{static_cast<double>(num_threads()) * granularity_job_bytes(pt.spec),
                     static_cast<double>(trials) * granularity_job_flops(pt.spec) / kFlopsPerOp};
  });
  return def;
}

}  // namespace

// Defined in studies_noisy_b3.cpp and studies_moefication.cpp.
StudyDef noisy_robustness_study();
StudyDef moefication_study();
StudyDef block_discovery_study();
StudyDef granularity_toy_study();  // studies_granularity_toy.cpp

void add_studies(std::vector<StudyDef>& out) {
  out.push_back(teacher_student_study());
  out.push_back(noisy_robustness_study());
  out.push_back(moefication_study());
  out.push_back(block_discovery_study());
  out.push_back(granularity_toy_study());
}

}  // namespace moelab::moe
