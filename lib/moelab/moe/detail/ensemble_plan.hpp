// The host side of the device ensemble (detail/ensemble_driver.hpp): a list of teacher-student
// configurations turned into data groups (TeacherData::data_key, as moe::Ensemble groups them), runs,
// their AdamW scalars per step (adamw_scalars: the CPU's expressions) and their initial parameters
// (init_pytorch on the host, then packed), and loaded into a core on any executor. Shared by the CUDA
// ensemble (moe/ensemble_cuda.cpp) and its CPU emulation test. Not for nvcc (Eigen).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "moelab/core/error.hpp"
#include "moelab/moe/detail/ensemble_driver.hpp"
#include "moelab/moe/detail/moe_layer_host.hpp"
#include "moelab/moe/teacher_student.hpp"

namespace moelab::moe {

template <class S>
struct DensePlan {
  std::vector<hd::EnsembleGroup> groups;
  std::vector<hd::EnsembleRun<S>> runs;
  std::vector<std::vector<S>> teacher_params, student_params;  // packed layout
  std::int64_t batch = 0, steps = 0, test_size = 0;
  std::int64_t train_size = 0;  // 0: online; else every group's fixed training set (a multiple of the batch)
};

/// What runs of one device ensemble share: d, d_out, batch, step count, test size and training-set
/// size (the study groups its runs by it; dense_plan_refusal requires one value).
inline std::string dense_plan_key(const TrainConfig& c) {
  return std::to_string(c.student.d) + " " + std::to_string(c.student.d_out) + " " + std::to_string(c.batch) + " " + std::to_string(c.steps) +
         " " + std::to_string(c.test_size) + " " + std::to_string(c.train_size);
}

/// Why `runs` cannot train together on the device ("" when they can): MLP experts, the default gate
/// with top-k routing, no oracle routing, a training set that is a multiple of the batch, and one
/// dense_plan_key for all.
inline std::string dense_plan_refusal(const std::vector<TrainConfig>& runs) {
  if (runs.empty()) return "no runs";
  const TrainConfig& a = runs.front();
  for (const TrainConfig& c : runs) {
    if (c.train_size % c.batch != 0)
      return "a fixed training set that is not a multiple of the batch (the device ensemble has no partial batches)";

    for (const MoeShape* s : {&c.teacher, &c.student}) {
      if (s->expert != ExpertKind::mlp) return "linear experts: the device ensemble runs MLP experts";
      if (s->weighting == Weighting::oracle) return "oracle routing: the teacher-student setting has no labels";
      if (s->gate != Gate::softmax_selected || s->routing != Routing::top_k)
        return "another gate or adaptive routing: the device ensemble runs the softmax over the selected logits with top-k routing";
    }
    if (c.teacher.d != c.student.d || c.teacher.d_out != c.student.d_out) return "teacher and student dimensions differ";
    if (dense_plan_key(c) != dense_plan_key(a))
      return c.train_size != a.train_size ? "runs of different training-set sizes (split them into one ensemble each)"
                                          : "runs of different d, batch, steps or test size (split them into one ensemble each)";
    if (c.batch < 1 || c.steps < 1 || c.test_size < 1) return "batch, steps and test size must be positive";
  }
  return "";
}

template <class S>
DensePlan<S> dense_plan(const std::vector<TrainConfig>& runs) {
  const std::string why = dense_plan_refusal(runs);
  MOELAB_EXPECT(why.empty(), ("device ensemble: " + why).c_str());
  DensePlan<S> p;
  p.batch = runs.front().batch, p.steps = runs.front().steps, p.test_size = runs.front().test_size;
  p.train_size = runs.front().train_size;
  std::map<std::string, int> group_of;
  for (const TrainConfig& c0 : runs) {
    TrainConfig c = c0;
    c.opt.total_steps = c.steps;
    const auto [it, added] = group_of.emplace(TeacherData<S>::data_key(c), static_cast<int>(p.groups.size()));
    if (added) {
      const hd::LayerDims T = layer_dims(c.teacher);
      p.groups.push_back({T, c.data_seed});
      MoeModel<S> teacher(c.teacher);
      init_pytorch(teacher, c.teacher_seed);
      p.teacher_params.push_back(pack_params<S>(T, teacher.params().data()));
    }
    hd::EnsembleRun<S> r;
    r.student = layer_dims(c.student);
    r.group = it->second;
    for (std::int64_t t = 0; t < c.steps; ++t) r.adamw.push_back(adamw_scalars<S>(c.opt, t));
    MoeModel<S> student(c.student);
    init_pytorch(student, c.student_seed);
    p.student_params.push_back(pack_params<S>(r.student, student.params().data()));
    p.runs.push_back(std::move(r));
  }
  return p;
}

/// Every group's visiting order of epoch `epoch` of its fixed training set (epoch_order of each data
/// seed, as TeacherData uses it), group after group: what DenseEnsembleCore::set_epoch_order takes.
inline std::vector<int> epoch_orders(const std::vector<std::uint64_t>& data_seeds, std::int64_t epoch, std::int64_t train_size) {
  std::vector<int> out;
  out.reserve(data_seeds.size() * static_cast<std::size_t>(train_size));
  for (std::uint64_t seed : data_seeds)
    for (std::int64_t i : epoch_order(seed, epoch, train_size)) out.push_back(static_cast<int>(i));
  return out;
}

/// Steps from .. to - 1 in spans that stay inside one epoch: set_order(orders) before each span of a
/// fixed training set (the epoch's order), then launch(first, end). Online: one span.
template <class SetOrder, class Launch>
void for_epoch_spans(const std::vector<std::uint64_t>& data_seeds, std::int64_t train_size, std::int64_t batch, std::int64_t from,
                     std::int64_t to, SetOrder&& set_order, Launch&& launch) {
  if (train_size == 0) {
    if (from < to) launch(from, to);
    return;
  }
  const std::int64_t per_epoch = train_size / batch;
  for (std::int64_t t = from; t < to;) {
    const std::int64_t epoch = t / per_epoch, end = std::min(to, (epoch + 1) * per_epoch);
    set_order(epoch_orders(data_seeds, epoch, train_size));
    launch(t, end);
    t = end;
  }
}

/// Uploads the plan's initial parameters into `core` (AdamW moments are zero from construction), then
/// evaluates the teachers on a fixed training set.
template <class S, class Exec>
void load_plan(Exec& ex, hd::DenseEnsembleCore<S, Exec>& core, const DensePlan<S>& p) {
  for (std::size_t g = 0; g < p.groups.size(); ++g)
    ex.upload(core.teacher_params(static_cast<int>(g)), p.teacher_params[g].data(), static_cast<std::int64_t>(p.teacher_params[g].size()));
  for (std::size_t r = 0; r < p.runs.size(); ++r)
    ex.upload(core.student_params(static_cast<int>(r)), p.student_params[r].data(), static_cast<std::int64_t>(p.student_params[r].size()));
  core.make_training_set();
}

}  // namespace moelab::moe
