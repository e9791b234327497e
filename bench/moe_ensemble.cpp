// Many runs of the granularity paper's Fig. 2 setting trained at once (moe::make_ensemble_trainer:
// moe::Ensemble<float>, or moe::EnsembleCuda<float> with --device cuda), for
// bench/ensemble_side_by_side.sh against the batched PyTorch baseline bench/torch_ensemble.py.
// Runs: for each (teacher_k, student_k) pair and seed a data group (teacher (2k)e(k)a with
// kw = --kw, student (2k')e(k')a with k'w' = --student-kw, d = d_out, ReLU experts, no biases,
// softmax over the selected logits, online N(0, I) inputs), and in each group one run per learning
// rate: the structure of the study moe.teacher_student's ensemble (one job per trial of a point).
//   bench_moe_ensemble [--d 64] [--batch 256] [--steps 200] [--warmup 2] [--pairs 2:2,2:4,4:2,4:4]
//                      [--lrs 1e-2,1e-3] [--seeds 2] [--kw d] [--student-kw 1.25 kw] [--threads T]
//                      [--device cpu] [--dump DIR [--dump-batch]]
// Prints one line per measurement: seconds per step of the whole ensemble (wall, and process CPU
// seconds: the machine may be shared) and the useful GFLOP/s (wall): the sum over runs of
// moe::step_flops (active experts only; the teacher's forward counted once per run as the
// single-run trainer computes it, though a data group evaluates it once).
// --dump DIR writes, before training, DIR/manifest.tsv and the initial parameters of every teacher
// and student in PyTorch's layout (torch_layout); after training DIR/moelab_losses.tsv and
// DIR/moelab_final.tsv. --dump-batch adds step 0's inputs and teacher targets of every group, the
// step-0 loss and gradient of every run and every student after its first step (torch_ensemble.py --check).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <exception>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <Eigen/Dense>
#include <fmt/format.h>

#include "bench_common.hpp"
#include "moelab/core/backend.hpp"
#include "moelab/core/keys.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/moe/ensemble.hpp"
#include "moelab/moe/ensemble_trainer.hpp"
#include "moelab/moe/granularity_experiment.hpp"

using namespace moelab;
using moelab::bench::Clock;
using moelab::bench::seconds_since;

namespace {

struct Pair {
  int teacher_k = 0, student_k = 0;
};

std::vector<Pair> parse_pairs(const std::string& text) {
  std::vector<Pair> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    Pair p;
    char colon = 0;
    std::istringstream in(item);
    if (!(in >> p.teacher_k >> colon >> p.student_k) || colon != ':' || p.teacher_k < 1 || p.student_k < 1)
      throw std::invalid_argument("--pairs: expected teacher_k:student_k,... (got '" + item + "')");
    out.push_back(p);
  }
  return out;
}

void write_floats(const std::string& path, const std::vector<float>& v) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(float)));
  if (!out) throw std::runtime_error("cannot write " + path);
}

/// A column-major (rows x cols) block appended row by row: torch.nn.Linear's weight [out, in] is
/// row-major, moelab's ParamLayout stores the same matrix column-major.
void append_row_major(std::vector<float>& out, const Eigen::Map<const Eigen::MatrixXf>& M) {
  const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> R = M;
  out.insert(out.end(), R.data(), R.data() + R.size());
}

/// The parameters of `model` with flat vector `v` in PyTorch's convention: router weight [m, d]
/// (and bias [m]), then per expert fc1.weight [w, d] (fc1.bias), fc2.weight [d_out, w] (fc2.bias).
std::vector<float> torch_layout(const moe::MoeModel<float>& model, const Eigen::VectorXf& v) {
  const moe::MoeShape& s = model.shape();
  std::vector<float> out;
  if (s.has_router()) {
    append_row_major(out, model.router_w(v));
    if (s.router_bias) out.insert(out.end(), v.data() + model.layout().router_b, v.data() + model.layout().router_b + s.m);
  }
  for (int j = 0; j < s.m; ++j) {
    append_row_major(out, model.w1(v, j));
    if (s.expert_bias) {
      const auto b = model.b1(v, j);
      out.insert(out.end(), b.data(), b.data() + b.size());
    }
    append_row_major(out, model.w2(v, j));
    if (s.expert_bias) {
      const auto b = model.b2(v, j);
      out.insert(out.end(), b.data(), b.data() + b.size());
    }
  }
  return out;
}

/// The initial parameters of a model of `shape` and `seed` (init_pytorch, as TeacherData and
/// TeacherStudent initialise theirs), in PyTorch's layout.
std::vector<float> initial_torch_layout(const moe::MoeShape& shape, std::uint64_t seed) {
  moe::MoeModel<float> model(shape);
  moe::init_pytorch(model, seed);
  return torch_layout(model, model.params());
}

std::vector<std::size_t> data_groups(const std::vector<moe::TrainConfig>& runs, std::size_t& groups) {
  std::vector<std::string> keys;
  std::vector<std::size_t> g(runs.size());
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const std::string key = moe::TeacherData<float>::data_key(runs[r]);
    std::size_t i = 0;
    while (i < keys.size() && keys[i] != key) ++i;
    if (i == keys.size()) keys.push_back(key);
    g[r] = i;
  }
  groups = keys.size();
  return g;
}

/// DIR/manifest.tsv (one row per run: everything torch_ensemble.py needs to rebuild the run and its
/// AdamW + cosine schedule, adamw.hpp: lr_t = lr (f + (1 - f)(1 + cos(pi min(1, t / T))) / 2), no
/// warmup) and every group's teacher and every run's student, initial parameters.
void dump_initial(const std::string& dir, const std::vector<moe::TrainConfig>& runs, const std::vector<std::size_t>& group,
                  const std::vector<int>& trial) {
  std::ofstream m(dir + "/manifest.tsv");
  m << "run\tgroup\ttrial\tteacher_m\tteacher_k\tteacher_w\tstudent_m\tstudent_k\tstudent_w\td\td_out\tbatch\tlr\tsteps\tweight_decay\tbeta1\tbeta2"
       "\teps\tcosine_steps\tfinal_lr_fraction\tlr_warmup_steps\ttest_size\trouter_bias\texpert_bias\tseed_teacher\tseed_student\tseed_data\n";
  std::vector<bool> teacher_written;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const moe::TrainConfig& c = runs[r];
    m << fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{:.17g}\t{}\t{:.17g}\t{:.17g}\t{:.17g}\t{:.17g}\t{}\t{:.17g}\t0\t{}\t{}\t{}\t{}\t{}\t{}\n", r,
                     group[r], trial[r], c.teacher.m, c.teacher.k, c.teacher.w, c.student.m, c.student.k, c.student.w, c.student.d, c.student.d_out, c.batch,
                     c.opt.lr, c.steps, c.opt.weight_decay, c.opt.beta1, c.opt.beta2, c.opt.eps, c.opt.total_steps, c.opt.final_lr_fraction,
                     c.test_size, c.student.router_bias ? 1 : 0, c.student.expert_bias ? 1 : 0, c.teacher_seed, c.student_seed, c.data_seed);
    if (teacher_written.size() <= group[r]) teacher_written.resize(group[r] + 1, false);
    if (!teacher_written[group[r]]) {
      write_floats(fmt::format("{}/teacher_{}.f32", dir, group[r]), initial_torch_layout(c.teacher, c.teacher_seed));
      teacher_written[group[r]] = true;
    }
    write_floats(fmt::format("{}/student_{}.f32", dir, r), initial_torch_layout(c.student, c.student_seed));
  }
  if (!m) throw std::runtime_error("cannot write " + dir + "/manifest.tsv");
}

/// Step 0's batch of every group: inputs X (d x batch column-major, i.e. [batch, d] row-major:
/// sample after sample, as torch's x) and the teacher's targets T (likewise [batch, d_out]),
/// drawn by TeacherData::batch_for_step(0) at the Philox addresses the training uses.
void dump_step0_batch(const std::string& dir, const std::vector<moe::TrainConfig>& runs, const std::vector<std::size_t>& group, std::size_t groups) {
  for (std::size_t g = 0; g < groups; ++g) {
    std::size_t r = 0;
    while (group[r] != g) ++r;
    const moe::TeacherData<float> data(runs[r]);
    Eigen::MatrixXf X, T;
    data.batch_for_step(0, X, T);
    write_floats(fmt::format("{}/batch_{}.x.f32", dir, g), std::vector<float>(X.data(), X.data() + X.size()));
    write_floats(fmt::format("{}/batch_{}.t.f32", dir, g), std::vector<float>(T.data(), T.data() + T.size()));
  }
}

// What the measurement reads from an ensemble of either backend (moe::EnsembleTrainer).
/// The student of run r and the gradient of its last step, in PyTorch's layout (--dump-batch's check).
std::vector<float> student_of(const moe::EnsembleTrainer<float>& e, std::size_t r) {
  moe::MoeModel<float> m(e.config(r).student);
  m.params() = e.student_params(r);
  return torch_layout(m, m.params());
}
std::vector<float> gradient_of(const moe::EnsembleTrainer<float>& e, std::size_t r) {
  moe::MoeModel<float> m(e.config(r).student);
  return torch_layout(m, e.last_gradient(r));
}

struct Options {
  int d = 64, batch = 256, steps = 200, warmup = 2, kw = 0, student_kw = 0, seeds = 2, threads = 1, test_size = 8192;
  std::string pairs = "2:2,2:4,4:2,4:4", lrs = "1e-2,1e-3", device = "cpu", dump;
  bool dump_batch = false, tf32 = false;
};

/// Trains `ens` for warmup + steps and prints the measurement; writes the after-training files under --dump.
int measure(moe::EnsembleTrainer<float>& ens, const Options& o, const std::vector<moe::TrainConfig>& runs) {
  const std::int64_t total = runs.front().steps;
  std::int64_t start = o.warmup;
  if (o.dump_batch) {
    // Step 0 (untimed): its loss per run, its gradient and every student after it, for
    // torch_ensemble.py --check.
    ens.train_until(1);
    std::ofstream l(o.dump + "/moelab_step0_loss.tsv");
    l << "run\tloss\n";
    for (std::size_t r = 0; r < runs.size(); ++r) {
      l << fmt::format("{}\t{:.17g}\n", r, ens.losses(r).front());
      write_floats(fmt::format("{}/student_{}.step1.f32", o.dump, r), student_of(ens, r));
      write_floats(fmt::format("{}/student_{}.grad0.f32", o.dump, r), gradient_of(ens, r));
    }
    start = std::max<std::int64_t>(start, 1);
  }
  ens.train_until(start);
  const auto t0 = Clock::now();
  const std::clock_t c0 = std::clock();  // process CPU time (all threads): robust to a shared machine's load
  ens.train_until(total);
  const double s = seconds_since(t0), cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  const std::int64_t timed = total - start;
  double flops = 0.0;  // per ensemble step
  for (const auto& c : runs) flops += moe::step_flops(c);
  std::size_t groups = 0;
  data_groups(runs, groups);
  std::printf("moelab_ensemble device %s threads %d runs %zu groups %zu steps %lld batch %d d %d s_per_step %.6g cpu_s_per_step %.6g useful_gflops %.4g flops_per_step %.6g\n",
              o.device.c_str(), o.threads, runs.size(), groups, static_cast<long long>(timed), o.batch, o.d, timed > 0 ? s / timed : 0.0,
              timed > 0 ? cpu / timed : 0.0, timed > 0 ? flops * timed / s / 1e9 : 0.0, flops);
  if (!o.dump.empty()) {
    std::ofstream l(o.dump + "/moelab_losses.tsv"), f(o.dump + "/moelab_final.tsv");
    l << "run\tstep\tloss\n";
    f << "run\ttest_nmse\n";
    const std::vector<double> nmse = ens.test_nmse();
    for (std::size_t r = 0; r < runs.size(); ++r) {
      const auto& loss = ens.losses(r);
      for (std::size_t t = 0; t < loss.size(); ++t)
        if (t % 10 == 0 || t + 1 == loss.size()) l << fmt::format("{}\t{}\t{:.9g}\n", r, t, loss[t]);
      f << fmt::format("{}\t{:.9g}\n", r, nmse[r]);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"moelab: many runs of the granularity Fig. 2 setting trained as one ensemble"};
  Options o;
  app.add_option("--d", o.d, "dimension (d_out = d)")->check(CLI::PositiveNumber);
  app.add_option("--batch", o.batch, "samples per step")->check(CLI::PositiveNumber);
  app.add_option("--steps", o.steps, "timed optimizer steps (the cosine runs over warmup + steps)")->check(CLI::PositiveNumber);
  app.add_option("--warmup", o.warmup, "untimed steps first")->check(CLI::NonNegativeNumber);
  app.add_option("--pairs", o.pairs, "teacher_k:student_k,... (teacher (2k)e(k)a, student (2k')e(k')a)");
  app.add_option("--lrs", o.lrs, "AdamW learning rates, one run per rate in every group");
  app.add_option("--seeds", o.seeds, "trials per pair (data groups)")->check(CLI::PositiveNumber);
  app.add_option("--kw", o.kw, "teacher active neurons k w (default d)")->check(CLI::NonNegativeNumber);
  app.add_option("--student-kw", o.student_kw, "student active neurons k' w' (default 1.25 kw)")->check(CLI::NonNegativeNumber);
  app.add_option("--test-size", o.test_size, "test samples of the normalized test MSE")->check(CLI::PositiveNumber);
  app.add_option("--threads", o.threads, "threads")->check(CLI::PositiveNumber);
  app.add_option("--device", o.device, "cpu (moe::Ensemble<float>) or cuda (moe::EnsembleCuda<float>: dense batched GEMMs, one CUDA graph per step), through moe::make_ensemble_trainer")->check(CLI::IsMember({"cpu", "cuda"}));
  app.add_option("--dump", o.dump, "directory (existing) for the manifest, the initial parameters, the losses and final test errors");
  app.add_flag("--tf32", o.tf32, "cuda: float32 GEMMs in TF32 (products rounded to 10 mantissa bits; off by default)");
  app.add_flag("--dump-batch", o.dump_batch, "with --dump: step 0's batch, losses and after-step students for torch_ensemble.py --check");
  CLI11_PARSE(app, argc, argv);
  if (o.dump_batch && o.dump.empty()) {
    std::fprintf(stderr, "bench_moe_ensemble: --dump-batch needs --dump DIR\n");
    return 2;
  }
  set_num_threads(o.threads);
  Eigen::setNbThreads(1);
  if (o.kw == 0) o.kw = o.d;
  if (o.student_kw == 0) o.student_kw = o.kw * 5 / 4;
  try {
    std::vector<double> lrs;
    {
      std::stringstream ss(o.lrs);
      std::string item;
      while (std::getline(ss, item, ',')) lrs.push_back(std::stod(item));
    }
    // Runs ordered group by group (pair, then seed), the learning rates inside a group.
    std::vector<moe::TrainConfig> runs;
    std::vector<int> trial;  // the seed index of each run (manifest)
    const RngKey root = RngKey::root(1).with("bench.moe_ensemble");
    for (const Pair& p : parse_pairs(o.pairs)) {
      moe::GranularitySpec spec;
      spec.teacher = moe::granularity_shape(2 * p.teacher_k, p.teacher_k, o.kw, o.d, false);
      spec.student = moe::granularity_shape(2 * p.student_k, p.student_k, o.student_kw, o.d, false);
      spec.learning_rates = lrs;
      spec.batch = o.batch;
      spec.samples = static_cast<std::int64_t>(o.warmup + o.steps) * o.batch;  // steps() = warmup + steps
      spec.test_size = o.test_size;
      const RngKey key = root.with(fmt::format("pair={}:{}", p.teacher_k, p.student_k));
      for (int t = 0; t < o.seeds; ++t)
        for (double lr : spec.learning_rates) runs.push_back(moe::granularity_config(spec, key, t, lr)), trial.push_back(t);
    }
    if (runs.empty()) throw std::invalid_argument("no runs (--pairs and --lrs)");
    std::size_t groups = 0;
    const std::vector<std::size_t> group = data_groups(runs, groups);
    if (!o.dump.empty()) {
      dump_initial(o.dump, runs, group, trial);
      if (o.dump_batch) dump_step0_batch(o.dump, runs, group, groups);
    }
    if (o.device == "cuda") {
      // The factory's refusal names the CLI's --backend; this program's option is --device.
      std::string why;
      if (!resolve_backend(BackendRequest::cuda, CudaPath::experimental, &why)) {
        std::fprintf(stderr, "bench_moe_ensemble: --device cuda: the CUDA backend cannot run here: %s; run with --device cpu\n",
                     why.c_str());
        return 2;
      }
    }
    const auto ens = moe::make_ensemble_trainer<float>(o.device == "cuda" ? Backend::cuda : Backend::cpu, runs, o.tf32);
    return measure(*ens, o, runs);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_moe_ensemble: %s\n", e.what());
    return 2;
  }
}
