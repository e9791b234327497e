// Many teacher-student runs at once (the ensemble): R independent runs (sweep points x learning
// rates x seeds), possibly of different shapes (m, k, w), advanced together. Each run keeps its own
// configuration and Philox addresses (teacher_student.hpp), so its bytes are those it computes alone,
// whatever other runs share the ensemble and for any thread count.
//
// Runs whose data are the same function of their configuration (TeacherData::data_key: teacher
// shape and seed, data seed, batch, set sizes: the learning rates of one seed) form a data group:
// the group draws the batch of step t and evaluates the teacher on it once, then steps each of its
// runs on it. A step of the ensemble advances every unfinished run by one.
//
// On the CPU the groups run in parallel (parallel_for, one group on one thread, each run's products
// through lapack::gemm as in the single-run trainer); a group's runs go step by step together. The
// groups need no synchronisation with each other between steps (their bytes do not depend on it),
// so a group runs from its current step to the target without a barrier per step. With fewer groups
// than threads the groups run one after another and the products parallelise inside a run instead
// (moe_model.cpp's expert loops); the bytes are the same either way.
//
// The device form (moe/ensemble_cuda.hpp) stacks the runs of one shape and evaluates every expert
// densely, so that each layer of all of them is one batched GEMM and a step is one CUDA graph
// (detail/ensemble_driver.hpp, emulated on the CPU in tests/moe/ensemble_device_emulation_test.cpp).
// Both sit behind EnsembleTrainer (ensemble_trainer.hpp), which users get from make_ensemble_trainer.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "moelab/moe/teacher_student.hpp"

namespace moelab::moe {

/// Steps the runs of one data group (all on `data`) together until each reaches min(last, its
/// steps): the batch of step t is drawn once for every run that takes step t.
template <class S>
void step_group(const TeacherData<S>& data, std::span<TeacherStudent<S>* const> runs, std::int64_t last);

template <class S>
class Ensemble {
 public:
  /// Every run initialised (teacher, student, test set: groups built in parallel), step 0.
  explicit Ensemble(const std::vector<TrainConfig>& runs);

  std::size_t size() const { return runs_.size(); }
  std::size_t groups() const { return groups_.size(); }
  /// The data group of run r (runs of one group share the teacher, the test set and every batch).
  std::size_t group_of(std::size_t r) const { return group_of_[r]; }
  TeacherStudent<S>& run(std::size_t r) { return *runs_[r]; }
  const TeacherStudent<S>& run(std::size_t r) const { return *runs_[r]; }

  /// Advances every run to min(last, its steps).
  void train_until(std::int64_t last);
  /// One step of every unfinished run.
  void step();
  /// The smallest step over the unfinished runs (the largest step when all are finished).
  std::int64_t current_step() const;

  /// One checkpoint per run (TeacherStudent::save), `prefix` + "run<r>.ck".
  void save(const std::string& prefix) const;
  /// Restores every run from `prefix` + "run<r>.ck" (InputError naming the file otherwise).
  void load(const std::string& prefix);

 private:
  struct Group {
    std::shared_ptr<const TeacherData<S>> data;
    std::vector<std::size_t> runs;
    double work = 0.0;  // flops per step (scheduling order only)
  };
  std::vector<std::unique_ptr<TeacherStudent<S>>> runs_;
  std::vector<std::size_t> group_of_;
  std::vector<Group> groups_;
};

/// Flops of one training step of `cfg` (student forward + backward, teacher forward), for ordering
/// work (largest first) and the cost models.
double step_flops(const TrainConfig& cfg);

}  // namespace moelab::moe
