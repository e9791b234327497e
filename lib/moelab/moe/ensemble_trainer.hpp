// Many teacher-student runs at once (the ensemble) behind one interface, with the CPU reference and
// the CUDA sibling (STYLE.md, "CUDA beside host code"; docs/gpu.md, "One shape"), as
// teacher_student_trainer.hpp is for one run. make_ensemble_trainer picks the implementation for a
// resolved Backend: Backend::cpu is Ensemble (ensemble.hpp: the runs grouped by data, the groups in
// parallel, active experts only); Backend::cuda is EnsembleCuda (ensemble_cuda.hpp: the runs of one
// shape stacked, every step one CUDA graph, emulated on the CPU in
// tests/moe/ensemble_device_emulation_test.cpp). Same configurations, initial parameters and Philox
// addresses, so the device runs agree with the CPU runs to float rounding.
//
// The interface is what both can honestly give: training to a step, the step reached, each run's
// losses, test NMSE, student parameters and last gradient, and a checkpoint. Anything one backend
// alone has (the CPU's per-run TeacherStudent, its data groups) stays on Ensemble.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "moelab/core/backend.hpp"
#include "moelab/moe/teacher_student.hpp"

namespace moelab::moe {

template <class S>
class EnsembleTrainer {
 public:
  using Vec = typename MoeModel<S>::Vec;
  virtual ~EnsembleTrainer() = default;
  virtual Backend backend() const = 0;
  /// Number of runs, and run r's configuration (in the order given to the factory).
  virtual std::size_t size() const = 0;
  virtual const TrainConfig& config(std::size_t r) const = 0;
  /// Trains every run until step min(last, its steps); returns when the steps are done (on the
  /// device: when the device has finished and the new losses are on the host).
  virtual void train_until(std::int64_t last) = 0;
  /// The step every unfinished run has reached (the smallest over them; the largest step when all
  /// are finished), and the most steps of any run.
  virtual std::int64_t step() const = 0;
  virtual std::int64_t steps() const = 0;
  /// Training loss (batch MSE before the update) of every step run r has taken, in order.
  virtual const std::vector<double>& losses(std::size_t r) const = 0;
  /// Normalised test MSE of every run now (test MSE x d_out / E||teacher(x)||^2 of its test set).
  virtual std::vector<double> test_nmse() = 0;
  /// Run r's student parameters, and its gradient of the last step taken (ParamLayout order; the
  /// CUDA trainer downloads them).
  virtual Vec student_params(std::size_t r) const = 0;
  virtual Vec last_gradient(std::size_t r) const = 0;

  /// Writes the state of every run (step, parameters, AdamW moments, losses) under `path`: on the
  /// CPU one TeacherStudent checkpoint per run, `path` + ".lr<r>" (a granularity job's runs are its
  /// learning rates; the names are those earlier builds wrote, so their states still resume); on the
  /// device one file, `path`, under a fingerprint of every run's configuration.
  virtual void save(const std::string& path) const = 0;
  /// Restores a state written by save() for the same runs: true when restored, false (nothing
  /// changed) when there is none at `path` (on the device also when it is another ensemble's).
  /// InputError naming the file when it cannot be used (damaged; on the CPU also another
  /// configuration's, which TeacherStudent's fingerprint refuses): some runs may then be restored
  /// already, so build a new trainer. Training continues with the bytes of an uninterrupted run.
  virtual bool load(const std::string& path) = 0;
  /// Removes what save(path) wrote (nothing when there is nothing).
  virtual void remove_saved(const std::string& path) const = 0;
};

/// The trainer of `runs` for a resolved backend. `tf32`: the CUDA trainer's float32 GEMMs in TF32
/// (the CPU ignores it). Backend::cuda throws RuntimeFailure "make_ensemble_trainer(cuda): ...;
/// run with --backend cpu ..." when the runs cannot train as one device ensemble
/// (ensemble_cuda_refusal: checked first, on any machine) or the CUDA backend cannot run here
/// (core/backend_factory.hpp).
template <class S>
std::unique_ptr<EnsembleTrainer<S>> make_ensemble_trainer(Backend backend, const std::vector<TrainConfig>& runs, bool tf32 = false);

}  // namespace moelab::moe
