// The CPU reference of the ensemble interface (ensemble_trainer.hpp: an adapter over Ensemble) and the
// factory. The CUDA implementation is the adapter over EnsembleCuda in ensemble_cuda.cpp (the only
// file of the ensemble that includes kernels/moe_layer.cuh).
#include "moelab/moe/ensemble_trainer.hpp"

#include <algorithm>
#include <filesystem>

#include "moelab/core/backend_factory.hpp"
#include "moelab/core/error.hpp"
#include "moelab/moe/detail/cuda_ensemble_trainer.hpp"
#include "moelab/moe/ensemble.hpp"
#include "moelab/moe/ensemble_cuda.hpp"

namespace moelab::moe {

namespace {

/// Run r's checkpoint under `path` on the CPU (EnsembleTrainer::save).
std::string cpu_run_file(const std::string& path, std::size_t r) { return path + ".lr" + std::to_string(r); }

template <class S>
class CpuEnsembleTrainer final : public EnsembleTrainer<S> {
 public:
  using Vec = typename EnsembleTrainer<S>::Vec;
  explicit CpuEnsembleTrainer(const std::vector<TrainConfig>& runs) : ens_(runs) {
    for (std::size_t r = 0; r < ens_.size(); ++r) steps_ = std::max(steps_, ens_.run(r).config().steps);
  }
  Backend backend() const override { return Backend::cpu; }
  std::size_t size() const override { return ens_.size(); }
  const TrainConfig& config(std::size_t r) const override { return ens_.run(r).config(); }
  void train_until(std::int64_t last) override { ens_.train_until(last); }
  std::int64_t step() const override { return ens_.current_step(); }
  std::int64_t steps() const override { return steps_; }
  const std::vector<double>& losses(std::size_t r) const override { return ens_.run(r).losses(); }
  std::vector<double> test_nmse() override {
    std::vector<double> out(ens_.size());
    for (std::size_t r = 0; r < out.size(); ++r) out[r] = ens_.run(r).test_nmse();
    return out;
  }
  Vec student_params(std::size_t r) const override { return ens_.run(r).student().params(); }
  Vec last_gradient(std::size_t r) const override { return ens_.run(r).last_gradient(); }
  void save(const std::string& path) const override {
    for (std::size_t r = 0; r < ens_.size(); ++r) ens_.run(r).save(cpu_run_file(path, r));
  }
  bool load(const std::string& path) override {
    if (!std::filesystem::exists(cpu_run_file(path, 0))) return false;
    for (std::size_t r = 0; r < ens_.size(); ++r) ens_.run(r).load(cpu_run_file(path, r));
    return true;
  }
  void remove_saved(const std::string& path) const override {
    for (std::size_t r = 0; r < ens_.size(); ++r) std::filesystem::remove(cpu_run_file(path, r));
  }

 private:
  Ensemble<S> ens_;
  std::int64_t steps_ = 0;
};

}  // namespace

template <class S>
std::unique_ptr<EnsembleTrainer<S>> make_ensemble_trainer(Backend backend, const std::vector<TrainConfig>& runs, bool tf32) {
  if (backend == Backend::cpu) return std::make_unique<CpuEnsembleTrainer<S>>(runs);
  // The plan first: whether the runs fit one device ensemble does not depend on the machine.
  if (const std::string why = ensemble_cuda_refusal(runs); !why.empty())
    throw RuntimeFailure("make_ensemble_trainer(cuda): the device ensemble cannot take these runs: " + why + "; run with --backend cpu");
  require_cuda_backend("make_ensemble_trainer");
  return detail::make_cuda_ensemble_trainer<S>(runs, tf32);
}

template std::unique_ptr<EnsembleTrainer<float>> make_ensemble_trainer<float>(Backend, const std::vector<TrainConfig>&, bool);
template std::unique_ptr<EnsembleTrainer<double>> make_ensemble_trainer<double>(Backend, const std::vector<TrainConfig>&, bool);

}  // namespace moelab::moe
