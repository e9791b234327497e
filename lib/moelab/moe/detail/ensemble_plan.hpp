// The host side of the device ensemble (detail/ensemble_driver.hpp): a list of teacher-student
// configurations turned into data groups (TeacherData::data_key, as moe::Ensemble groups them), runs,
// their AdamW scalars per step (adamw_scalars: the CPU's expressions) and their initial parameters
// (init_pytorch on the host, then packed), and loaded into a core on any executor. Shared by the CUDA
// ensemble (moe/ensemble_cuda.cpp) and its CPU emulation test. Not for nvcc (Eigen).
#pragma once

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
};

/// Why `runs` cannot train together on the device ("" when they can): every run online, MLP
/// experts, no oracle routing, and one d, d_out, batch, step count and test size for all.
inline std::string dense_plan_refusal(const std::vector<TrainConfig>& runs) {
  if (runs.empty()) return "no runs";
  const TrainConfig& a = runs.front();
  for (const TrainConfig& c : runs) {
    if (c.train_size != 0) return "a fixed training set (train_size > 0): the device ensemble trains online";
    for (const MoeShape* s : {&c.teacher, &c.student}) {
      if (s->expert != ExpertKind::mlp) return "linear experts: the device ensemble runs MLP experts";
      if (s->weighting == Weighting::oracle) return "oracle routing: the teacher-student setting has no labels";
      if (s->gate != Gate::softmax_selected || s->routing != Routing::top_k)
        return "another gate or adaptive routing: the device ensemble runs the softmax over the selected logits with top-k routing";
    }
    if (c.teacher.d != c.student.d || c.teacher.d_out != c.student.d_out) return "teacher and student dimensions differ";
    if (c.student.d != a.student.d || c.student.d_out != a.student.d_out || c.batch != a.batch || c.steps != a.steps || c.test_size != a.test_size)
      return "runs of different d, batch, steps or test size (split them into one ensemble each)";
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

/// Uploads the plan's initial parameters into `core` (AdamW moments are zero from construction).
template <class S, class Exec>
void load_plan(Exec& ex, hd::DenseEnsembleCore<S, Exec>& core, const DensePlan<S>& p) {
  for (std::size_t g = 0; g < p.groups.size(); ++g)
    ex.upload(core.teacher_params(static_cast<int>(g)), p.teacher_params[g].data(), static_cast<std::int64_t>(p.teacher_params[g].size()));
  for (std::size_t r = 0; r < p.runs.size(); ++r)
    ex.upload(core.student_params(static_cast<int>(r)), p.student_params[r].data(), static_cast<std::int64_t>(p.student_params[r].size()));
}

}  // namespace moelab::moe
