#include "moelab/config.hpp"
#include "moelab/moe/ensemble_cuda.hpp"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "moelab/core/csv.hpp"
#include "moelab/core/distributed.hpp"

#include "moelab/core/backend.hpp"
#include "moelab/core/error.hpp"
#include "moelab/moe/detail/cuda_ensemble_trainer.hpp"
#include "moelab/moe/detail/ensemble_plan.hpp"

#if MOELAB_HAVE_CUDA
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
std::string ensemble_cuda_key(const TrainConfig& run) { return dense_plan_key(run); }

namespace {

constexpr char kStateMagic[16] = {'m', 'o', 'e', 'l', 'a', 'b', '-', 'e', 'n', 's', 'e', 'm', 'b', 'l', 'e', '\0'};
constexpr std::uint32_t kStateVersion = 1;

std::uint64_t ensemble_fingerprint(const std::vector<TrainConfig>& runs, int scalar_bytes) {
  std::uint64_t h = fnv1a64("ensemble");
  for (const TrainConfig& c : runs) h = fnv1a64(c.canonical(scalar_bytes) + "\n", h);
  return h;
}

}  // namespace

template <class S>
EnsembleCuda<S>::~EnsembleCuda() = default;

#if MOELAB_HAVE_CUDA

template <class S>
EnsembleCuda<S>::EnsembleCuda(const std::vector<TrainConfig>& runs, bool tf32) : runs_(runs) {
  if (!cuda_backend_available()) throw RuntimeFailure("EnsembleCuda: no usable CUDA device");
  const DensePlan<S> plan = dense_plan<S>(runs);  // checks the runs (dense_plan_refusal)
  steps_ = plan.steps, test_size_ = plan.test_size, groups_ = plan.groups.size(), batch_ = plan.batch, train_size_ = plan.train_size;
  for (const auto& r : plan.runs) group_of_.push_back(r.group);
  for (const auto& g : plan.groups) data_seeds_.push_back(g.data_seed);
  try {
    dev_ = std::make_unique<cuda::EnsembleDevice<S>>(plan.groups, plan.runs, plan.batch, plan.steps, plan.train_size, tf32);
  } catch (const std::runtime_error& e) {  // device memory refused, or a CUDA error: the run's failure, named
    throw RuntimeFailure(e.what());
  }
  for (std::size_t g = 0; g < plan.groups.size(); ++g) dev_->upload_teacher(static_cast<int>(g), plan.teacher_params[g].data());
  dev_->make_training_set();
  for (std::size_t r = 0; r < plan.runs.size(); ++r) dev_->upload_student(static_cast<int>(r), plan.student_params[r].data(), nullptr, nullptr);
  energy_ = dev_->teacher_energy(test_size_);
  losses_.resize(runs_.size());
}

template <class S>
void EnsembleCuda<S>::train_until(std::int64_t last) {
  last = std::min(last, steps_);
  if (last <= step_) return;
  for_epoch_spans(
      data_seeds_, train_size_, batch_, step_, last, [&](const std::vector<int>& order) { dev_->set_epoch_order(order); },
      [&](std::int64_t a, std::int64_t b) { dev_->run_steps(a, b); });
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

template <class S>
typename EnsembleCuda<S>::Vec EnsembleCuda<S>::last_gradient(std::size_t r) const {
  const hd::LayerDims L = layer_dims(runs_[r].student);
  std::vector<S> packed(static_cast<std::size_t>(L.total));
  dev_->download_gradient(static_cast<int>(r), packed.data());
  Vec g(L.total);
  unpack_params(L, packed.data(), g.data());
  return g;
}

template <class S>
void EnsembleCuda<S>::save(const std::string& path) const {
  std::string out(kStateMagic, sizeof(kStateMagic));
  append_bytes(out, kStateVersion);
  append_bytes(out, static_cast<std::uint32_t>(sizeof(S)));
  append_bytes(out, ensemble_fingerprint(runs_, static_cast<int>(sizeof(S))));
  append_bytes(out, step_);
  append_bytes(out, static_cast<std::int64_t>(runs_.size()));
  for (std::size_t r = 0; r < runs_.size(); ++r) {
    const std::int64_t P = layer_dims(runs_[r].student).total;
    std::vector<S> buf(static_cast<std::size_t>(3 * P));
    dev_->download_student(static_cast<int>(r), buf.data(), buf.data() + P, buf.data() + 2 * P);
    append_bytes(out, P);
    out.append(reinterpret_cast<const char*>(buf.data()), sizeof(S) * buf.size());
    out.append(reinterpret_cast<const char*>(losses_[r].data()), sizeof(double) * static_cast<std::size_t>(step_));
  }
  write_file_atomic(path, out, /*even_if_interrupted=*/true);  // a checkpoint: kept for --resume
}

template <class S>
bool EnsembleCuda<S>::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::size_t pos = 0;
  const auto fail = [&](const std::string& key, const std::string& why) { throw InputError(path, 0, key, why); };
  const auto get = [&](void* v, std::size_t bytes, const char* key) {
    if (pos + bytes > data.size()) fail(key, "file ends early (truncated ensemble state)");
    std::memcpy(v, data.data() + pos, bytes);
    pos += bytes;
  };
  if (data.size() < sizeof(kStateMagic) || std::memcmp(data.data(), kStateMagic, sizeof(kStateMagic)) != 0) fail("magic", "not a moelab ensemble state");
  pos = sizeof(kStateMagic);
  std::uint32_t version = 0, scalar = 0;
  std::uint64_t fingerprint = 0;
  std::int64_t step = 0, count = 0;
  get(&version, sizeof(version), "version");
  if (version != kStateVersion) fail("version", "written by another moelab version");
  get(&scalar, sizeof(scalar), "scalar");
  get(&fingerprint, sizeof(fingerprint), "fingerprint");
  if (scalar != sizeof(S) || fingerprint != ensemble_fingerprint(runs_, static_cast<int>(sizeof(S)))) return false;  // another ensemble's
  get(&step, sizeof(step), "step");
  get(&count, sizeof(count), "runs");
  if (step < 0 || step > steps_ || count != static_cast<std::int64_t>(runs_.size())) fail("step", "inconsistent with its fingerprint");
  std::vector<std::vector<S>> state(runs_.size());
  std::vector<std::vector<double>> losses(runs_.size());
  for (std::size_t r = 0; r < runs_.size(); ++r) {
    std::int64_t P = 0;
    get(&P, sizeof(P), "parameters");
    if (P != layer_dims(runs_[r].student).total) fail("parameters", "parameter count differs from the run's");
    state[r].resize(static_cast<std::size_t>(3 * P));
    get(state[r].data(), sizeof(S) * state[r].size(), "parameters");
    losses[r].resize(static_cast<std::size_t>(step));
    get(losses[r].data(), sizeof(double) * losses[r].size(), "losses");
  }
  if (pos != data.size()) fail("size", "trailing bytes after the last run");
  for (std::size_t r = 0; r < runs_.size(); ++r) {
    const std::size_t P = state[r].size() / 3;
    dev_->upload_student(static_cast<int>(r), state[r].data(), state[r].data() + P, state[r].data() + 2 * P);
  }
  dev_->set_step(step);
  step_ = step;
  losses_ = std::move(losses);
  return true;
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
template <class S>
typename EnsembleCuda<S>::Vec EnsembleCuda<S>::last_gradient(std::size_t) const { return {}; }
template <class S>
void EnsembleCuda<S>::save(const std::string&) const {}
template <class S>
bool EnsembleCuda<S>::load(const std::string&) { return false; }

#endif

template class EnsembleCuda<float>;
template class EnsembleCuda<double>;

// The CUDA implementation of the ensemble interface (ensemble_trainer.hpp), for make_ensemble_trainer.
namespace {
template <class S>
class CudaEnsembleTrainer final : public EnsembleTrainer<S> {
 public:
  using Vec = typename EnsembleTrainer<S>::Vec;
  CudaEnsembleTrainer(const std::vector<TrainConfig>& runs, bool tf32) : ens_(runs, tf32) {}
  Backend backend() const override { return Backend::cuda; }
  std::size_t size() const override { return ens_.size(); }
  const TrainConfig& config(std::size_t r) const override { return ens_.config(r); }
  void train_until(std::int64_t last) override { ens_.train_until(last); }
  std::int64_t step() const override { return ens_.step(); }
  std::int64_t steps() const override { return ens_.steps(); }
  const std::vector<double>& losses(std::size_t r) const override { return ens_.losses(r); }
  std::vector<double> test_nmse() override { return ens_.test_nmse(); }
  Vec student_params(std::size_t r) const override { return ens_.student_params(r); }
  Vec last_gradient(std::size_t r) const override { return ens_.last_gradient(r); }
  void save(const std::string& path) const override { ens_.save(path); }
  bool load(const std::string& path) override { return ens_.load(path); }
  void remove_saved(const std::string& path) const override { std::filesystem::remove(path); }

 private:
  EnsembleCuda<S> ens_;
};

}  // namespace

namespace detail {
template <class S>
std::unique_ptr<EnsembleTrainer<S>> make_cuda_ensemble_trainer(const std::vector<TrainConfig>& runs, bool tf32) {
  return std::make_unique<CudaEnsembleTrainer<S>>(runs, tf32);
}
template std::unique_ptr<EnsembleTrainer<float>> make_cuda_ensemble_trainer<float>(const std::vector<TrainConfig>&, bool);
template std::unique_ptr<EnsembleTrainer<double>> make_cuda_ensemble_trainer<double>(const std::vector<TrainConfig>&, bool);
}  // namespace detail

}  // namespace moelab::moe
