#include "moelab/moe/ensemble_cuda.hpp"

#include <stdexcept>

#include "moelab/core/backend.hpp"
#include "moelab/core/error.hpp"
#include "moelab/moe/detail/ensemble_plan.hpp"

#ifdef MOELAB_HAVE_CUDA
#include "kernels/moe_layer.cuh"
#else
// The forward-declared device type needs a definition for unique_ptr's deleter in this build.
namespace moelab::cuda {
template <class S>
class EnsembleDevice {};
}  // namespace moelab::cuda
#endif

namespace moelab::moe {

std::string ensemble_cuda_refusal(const std::vector<TrainConfig>& runs) { return dense_plan_refusal(runs); }

template <class S>
EnsembleCuda<S>::~EnsembleCuda() = default;

#ifdef MOELAB_HAVE_CUDA

template <class S>
EnsembleCuda<S>::EnsembleCuda(const std::vector<TrainConfig>& runs, bool tf32) : runs_(runs) {
  if (!cuda_backend_available()) throw RuntimeFailure("EnsembleCuda: no usable CUDA device");
  const DensePlan<S> plan = dense_plan<S>(runs);  // checks the runs (dense_plan_refusal)
  steps_ = plan.steps, test_size_ = plan.test_size, groups_ = plan.groups.size();
  for (const auto& r : plan.runs) group_of_.push_back(r.group);
  try {
    dev_ = std::make_unique<cuda::EnsembleDevice<S>>(plan.groups, plan.runs, plan.batch, plan.steps, tf32);
  } catch (const std::runtime_error& e) {  // device memory refused, or a CUDA error: the run's failure, named
    throw RuntimeFailure(e.what());
  }
  for (std::size_t g = 0; g < plan.groups.size(); ++g) dev_->upload_teacher(static_cast<int>(g), plan.teacher_params[g].data());
  for (std::size_t r = 0; r < plan.runs.size(); ++r) dev_->upload_student(static_cast<int>(r), plan.student_params[r].data(), nullptr, nullptr);
  energy_ = dev_->teacher_energy(test_size_);
  losses_.resize(runs_.size());
}

template <class S>
void EnsembleCuda<S>::train_until(std::int64_t last) {
  last = std::min(last, steps_);
  if (last <= step_) return;
  dev_->run_steps(step_, last);
  for (std::size_t r = 0; r < runs_.size(); ++r) {
    losses_[r].resize(static_cast<std::size_t>(last));
    dev_->download_losses(static_cast<int>(r), losses_[r].data() + step_, step_, last - step_);
  }
  dev_->synchronize();
  step_ = last;
}

template <class S>
std::vector<double> EnsembleCuda<S>::test_nmse() {
  std::vector<double> out = dev_->test_mse(test_size_);
  for (std::size_t r = 0; r < out.size(); ++r)
    out[r] *= runs_[r].student.d_out / energy_[static_cast<std::size_t>(group_of_[r])];  // teacher_student.cpp's test_nmse
  return out;
}

template <class S>
typename EnsembleCuda<S>::Vec EnsembleCuda<S>::student_params(std::size_t r) const {
  const hd::LayerDims L = layer_dims(runs_[r].student);
  std::vector<S> packed(static_cast<std::size_t>(L.total));
  dev_->download_student(static_cast<int>(r), packed.data(), nullptr, nullptr);
  Vec p(L.total);
  unpack_params(L, packed.data(), p.data());
  return p;
}

#else  // built without CUDA: the type exists, constructing it is an error

template <class S>
EnsembleCuda<S>::EnsembleCuda(const std::vector<TrainConfig>& runs, bool) : runs_(runs) {
  throw RuntimeFailure("EnsembleCuda: moelab was built without the CUDA backend (configure with -DMOELAB_CUDA=ON)");
}
template <class S>
void EnsembleCuda<S>::train_until(std::int64_t) {}
template <class S>
std::vector<double> EnsembleCuda<S>::test_nmse() { return {}; }
template <class S>
typename EnsembleCuda<S>::Vec EnsembleCuda<S>::student_params(std::size_t) const { return {}; }

#endif

template class EnsembleCuda<float>;
template class EnsembleCuda<double>;

}  // namespace moelab::moe
