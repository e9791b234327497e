// Many teacher-student runs trained in lock-step on an executor (the device form of moe/ensemble.hpp),
// written once over `Exec` (moe_layer_driver.hpp's interface, plus gemm_batched below) and run by the
// CUDA executor (kernels/moe_ensemble.cu) and the CPU emulation (tests/moe/ensemble_device_emulation_test.cpp).
//
// Runs of one student shape form a class, and so do the teachers of one shape: a class's parameters,
// gradients, AdamW moments and activations are stacked (one allocation, a fixed stride per run), and
// every layer is evaluated densely over all experts (ensemble_hd.hpp), so a step is a fixed list of
// calls, each covering every run of a class: one batched GEMM per layer product, one launch per
// elementwise piece. Every size is known at construction: a step allocates nothing, copies nothing to
// or from the host, and reads its step number from executor memory, so the CUDA executor records one
// step as a CUDA graph and replays it. Host synchronisation happens only at evaluation and when the
// losses are read.
//
// Data groups: runs sharing a teacher and a data seed draw one batch X ~ N(0, I_d) per step at
// (data_seed, moe_train_data, step), the same Philox addresses as the CPU trainer (so the inputs are
// the CPU's bytes), and evaluate their teacher once. The test set of a group is drawn chunk by chunk
// at (data_seed, moe_test_data, 0), as the CPU's, and the teacher re-evaluated per chunk (nothing of
// size test_size is stored: 64 groups x 65536 test inputs x d = 256 would be 4 GB).
//
// Exec, beyond moe_layer_driver.hpp's interface:
//   template <class S> void gemm_batched(bool ta, bool tb, int m, int n, int k, const S* const* A, int lda,
//                                        const S* const* B, int ldb, S* const* C, int ldc, int count);
//   C[i] = op(A[i]) op(B[i]) for i < count; the pointer arrays live where the executor computes.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "moelab/moe/detail/ensemble_hd.hpp"

namespace moelab::moe::hd {

/// Bytes DenseEnsembleCore allocates for these runs (what a device must have free; pointer arrays
/// and the executor's own workspace not included).
template <class S>
double dense_ensemble_bytes(const std::vector<EnsembleGroup>& groups, const std::vector<EnsembleRun<S>>& runs, std::int64_t batch,
                            std::int64_t steps, std::int64_t train_size = 0) {
  const double n = static_cast<double>(batch), z = sizeof(S);
  const auto layer = [&](const LayerDims& L, bool student) {
    const double T = static_cast<double>(packed_dims(L).total), mw = static_cast<double>(L.m) * L.w;
    double b = z * T + 2.0 * z * L.m * n + (z + 4.0) * n * L.k + 2.0 * z * mw * n + z * L.d_out * n;  // theta, logits, G, slots, H, Hs, Y
    if (student) b += 3.0 * z * T + z * L.m * n + z * n * L.k + z * mw * n + z * L.d_out * n + 6.0 * z * static_cast<double>(steps) + 8.0 * steps;
    return b;  // + grad, m, v, dlogits, dg, dHs, dY, AdamW table, losses
  };
  double total = 0.0;
  for (const EnsembleGroup& g : groups)
    total += layer(g.teacher, false) + z * g.teacher.d * n + static_cast<double>(train_size) * (z * (g.teacher.d + g.teacher.d_out) + 4.0);
  for (const EnsembleRun<S>& r : runs) total += layer(r.student, true) + 8.0 * n;
  return total;
}

template <class S, class Exec>
class DenseEnsembleCore {
 public:
  template <class T>
  using Buf = typename Exec::template Buffer<T>;
  using Group = EnsembleGroup;
  using Run = EnsembleRun<S>;

  /// Every run takes `steps` steps of `batch` inputs of dimension d (the same for all runs); online
  /// (train_size 0: fresh inputs every step) or from a fixed training set of `train_size` samples
  /// per group, a multiple of the batch (visited in the order set_epoch_order gives each epoch).
  DenseEnsembleCore(Exec& ex, const std::vector<Group>& groups, const std::vector<Run>& runs, std::int64_t batch, std::int64_t steps,
                    std::int64_t train_size = 0)
      : ex_(ex), n_(batch), steps_(steps), train_size_(train_size), runs_(static_cast<int>(runs.size())), groups_(static_cast<int>(groups.size())) {
    if (groups.empty() || runs.empty()) throw std::invalid_argument("DenseEnsembleCore: no runs");
    if (batch < 1 || steps < 1) throw std::invalid_argument("DenseEnsembleCore: batch and steps must be positive");
    if (train_size < 0 || train_size % batch != 0) throw std::invalid_argument("DenseEnsembleCore: the training set must be a multiple of the batch");
    d_ = groups[0].teacher.d, d_out_ = groups[0].teacher.d_out;
    for (const Group& g : groups) check_layer(g.teacher, "teacher");
    for (const Run& r : runs) {
      check_layer(r.student, "student");
      if (r.group < 0 || r.group >= groups_) throw std::invalid_argument("DenseEnsembleCore: a run of no group");
      if (static_cast<std::int64_t>(r.adamw.size()) != steps) throw std::invalid_argument("DenseEnsembleCore: one AdamW scalar set per step");
    }
    // Classes: the teachers of one shape, the students of one shape (in order of first appearance).
    std::map<Key, int> teacher_cls, student_cls;
    for (int g = 0; g < groups_; ++g) place(teacher_cls, groups[static_cast<std::size_t>(g)].teacher, false, g);
    for (int r = 0; r < runs_; ++r) place(student_cls, runs[static_cast<std::size_t>(r)].student, true, r);
    // The groups' inputs and seeds.
    X_.resize(static_cast<std::size_t>(groups_ * d_ * n_));
    seeds_.resize(static_cast<std::size_t>(groups_));
    std::vector<std::uint64_t> seeds;
    for (const Group& g : groups) seeds.push_back(g.data_seed);
    ex_.upload(seeds_.get(), seeds.data(), groups_);
    zeros_.resize(static_cast<std::size_t>(d_out_ * n_));
    ex_.zero(zeros_.get(), d_out_ * n_);
    step_.resize(1);
    set_step(0);
    losses_.resize(static_cast<std::size_t>(runs_ * steps_));
    acc_.resize(static_cast<std::size_t>(runs_ > groups_ ? runs_ : groups_));
    std::int64_t cols = 0;
    for (auto& c : classes_) cols = c->R * n_ > cols ? c->R * n_ : cols;
    col_.resize(static_cast<std::size_t>(cols));
    // Where each teacher's outputs (the targets) live, and every class's buffers and pointer arrays.
    target_of_.assign(static_cast<std::size_t>(groups_), nullptr);
    for (auto& c : classes_)
      if (!c->student) allocate(*c, runs);
    for (auto& c : classes_)
      if (c->student) allocate(*c, runs);
    targets_.resize(static_cast<std::size_t>(groups_));
    ex_.upload(targets_.get(), target_of_.data(), groups_);
  }
  DenseEnsembleCore(const DenseEnsembleCore&) = delete;
  DenseEnsembleCore& operator=(const DenseEnsembleCore&) = delete;

  int runs() const { return runs_; }
  int groups() const { return groups_; }
  std::int64_t steps() const { return steps_; }
  std::int64_t batch() const { return n_; }
  /// Classes (for the cost model and the benchmark's report): runs per class, in order.
  std::size_t classes() const { return classes_.size(); }
  /// Packed parameters of group g's teacher / run r's student, its gradient and AdamW moments (executor memory).
  S* teacher_params(int g) { return slot(false, g, &Class::theta); }
  S* student_params(int r) { return slot(true, r, &Class::theta); }
  S* adam_m(int r) { return slot(true, r, &Class::m); }
  S* adam_v(int r) { return slot(true, r, &Class::v); }
  const S* gradient(int r) { return slot(true, r, &Class::grad); }
  const PackedDims& student_dims(int r) const { return locate(true, r).first->P; }
  const PackedDims& teacher_dims(int g) const { return locate(false, g).first->P; }
  /// Training losses of run r, steps 0 .. steps - 1 (executor memory; written as the steps run).
  const double* losses(int r) const { return losses_.get() + static_cast<std::int64_t>(r) * steps_; }
  /// The step the next step() takes (executor memory; set_step for a resumed run).
  std::int64_t* step_counter() { return step_.get(); }
  void set_step(std::int64_t s) { ex_.upload(step_.get(), &s, 1); }

  std::int64_t train_size() const { return train_size_; }
  /// The order of the coming epoch for every group (G x train_size sample indices, group after group:
  /// epoch_order of each group's data seed); the steps of that epoch read it. Not part of a step.
  void set_epoch_order(const std::vector<int>& order) {
    if (static_cast<std::int64_t>(order.size()) != groups_ * train_size_) throw std::invalid_argument("DenseEnsembleCore: one order per group");
    ex_.upload(order_.get(), order.data(), groups_ * train_size_);
  }

  /// The fixed training set of every group: inputs at (data_seed, moe_train_data, 0) (gaussian_inputs'
  /// addresses, as TeacherData draws them) and the teacher's outputs on them, chunk by chunk. Once,
  /// after the teachers' parameters are loaded and before the first step (no-op when online).
  void make_training_set() {
    if (train_size_ == 0) return;
    const std::int64_t N = train_size_;
    train_x_.resize(static_cast<std::size_t>(groups_ * d_ * N));
    train_t_.resize(static_cast<std::size_t>(groups_ * d_out_ * N));
    order_.resize(static_cast<std::size_t>(groups_ * N));
    ex_.for_each(groups_ * d_ * N, GroupInputs<S>{train_x_.get(), seeds_.get(), StreamTag::moe_train_data, nullptr, 0, d_ * N, d_ * N, 0});
    for (std::int64_t c0 = 0; c0 < N; c0 += n_) {
      ex_.for_each(groups_ * d_ * n_, GroupCopy<S>{X_.get(), d_ * n_, train_x_.get(), d_ * N, c0 * d_, d_ * n_});
      for (auto& c : classes_)
        if (!c->student) forward(*c);
      ex_.for_each(groups_ * d_out_ * n_, GroupStoreTargets<S>{train_t_.get(), d_out_ * N, c0 * d_out_, targets_.get(), d_out_ * n_});
    }
    training_set_ready_ = true;
  }

  /// One step of every run: batches, teachers' forward, students' forward, loss, backward, AdamW.
  /// Issues a fixed sequence of calls (no allocation, no host copy): recordable as a CUDA graph.
  void step() {
    if (train_size_ > 0 && !training_set_ready_) throw std::logic_error("DenseEnsembleCore: make_training_set after the teachers are loaded");
    if (train_size_ > 0) {
      ex_.for_each(groups_ * n_, GroupGather<S>{X_.get(), targets_.get(), train_x_.get(), train_t_.get(), order_.get(), step_.get(), d_, d_out_, n_,
                                               train_size_});
    } else {
      ex_.for_each(groups_ * d_ * n_, GroupInputs<S>{X_.get(), seeds_.get(), StreamTag::moe_train_data, step_.get(), 0, d_ * n_, d_ * n_, 0});
      for (auto& c : classes_)
        if (!c->student) forward(*c);
    }
    for (auto& c : classes_) {
      if (!c->student) continue;
      Class& C = *c;
      forward(C);
      const double count = static_cast<double>(d_out_) * static_cast<double>(n_);
      ex_.for_each(C.R * n_, RunColumnSquaredError<S>{C.Y.get(), C.targets.get(), d_out_, n_, n_, col_.get()});
      ex_.for_each(C.R, RunLoss{col_.get(), n_, count, step_.get(), C.index.get(), steps_, losses_.get()});
      ex_.for_each(C.R * d_out_ * n_, RunMseGradient<S>{C.Y.get(), C.targets.get(), d_out_ * n_, static_cast<S>(2.0 / count), C.dY.get()});
      backward(C);
      ex_.for_each(C.R * C.P.total, RunAdamW<S>{C.theta.get(), C.m.get(), C.v.get(), C.grad.get(), C.adamw.get(), step_.get(), C.P.total, C.R});
    }
    ex_.for_each(1, AdvanceStep{step_.get()});
  }

  /// Test MSE per entry of every run's student on `test_size` inputs per group (chunks of `batch`;
  /// synchronises). Overwrites the batch buffers (the next step draws its own).
  std::vector<double> test_mse(std::int64_t test_size) { return over_test_set(test_size, true); }
  /// E||teacher(x)||^2 over the test set, per group.
  std::vector<double> teacher_energy(std::int64_t test_size) { return over_test_set(test_size, false); }

 private:
  using Key = std::tuple<int, int, int, int, int, bool, bool, bool, int>;
  struct Gemm {
    Buf<const S*> a, b;
    Buf<S*> c;
  };
  struct Class {
    PackedDims P;
    bool student = false;
    std::int64_t R = 0;
    std::vector<int> members;  // group ids (teachers) or run ids (students)
    Buf<S> theta, grad, m, v, logits, G, slot_w, H, Hs, Y, dY, dHs, dg, dlogits;
    Buf<int> slot_e, index;
    Buf<const S*> targets, zero_targets;
    Buf<AdamWScalars<S>> adamw;
    Gemm router, w1, w2, d_hs, d_w2, d_b2, d_w1, d_router;
  };

  static void check_layer(const LayerDims& L, const char* who) {
    if (!L.mlp) throw std::invalid_argument(std::string("DenseEnsembleCore: the ") + who + " has linear experts (the batched path runs MLP experts)");
    if (L.weights == Weights::oracle) throw std::invalid_argument(std::string("DenseEnsembleCore: the ") + who + " routes by an oracle");
  }

  void place(std::map<Key, int>& cls, const LayerDims& L, bool student, int member) {
    if (L.d != d_ || L.d_out != d_out_) throw std::invalid_argument("DenseEnsembleCore: every run needs the same input and output dimensions");
    const Key key{L.m, L.k, L.w, L.d, L.d_out, L.expert_bias, L.router_bias, L.has_router, static_cast<int>(L.weights)};
    auto it = cls.find(key);
    if (it == cls.end()) {
      it = cls.emplace(key, static_cast<int>(classes_.size())).first;
      classes_.push_back(std::make_unique<Class>());
      classes_.back()->P = packed_dims(L);
      classes_.back()->student = student;
    }
    Class& c = *classes_[static_cast<std::size_t>(it->second)];
    (student ? run_slot_ : group_slot_).resize(static_cast<std::size_t>(member) + 1);
    (student ? run_slot_ : group_slot_)[static_cast<std::size_t>(member)] = {it->second, static_cast<int>(c.R)};
    c.members.push_back(member);
    ++c.R;
  }

  std::pair<const Class*, std::int64_t> locate(bool student, int member) const {
    const auto& slots = student ? run_slot_ : group_slot_;
    if (member < 0 || member >= static_cast<int>(slots.size())) throw std::out_of_range("DenseEnsembleCore: no such run or group");
    const auto [cls, q] = slots[static_cast<std::size_t>(member)];
    return {classes_[static_cast<std::size_t>(cls)].get(), q};
  }
  S* slot(bool student, int member, Buf<S> Class::*buf) {
    const auto [c, q] = locate(student, member);
    return (const_cast<Class*>(c)->*buf).get() + q * c->P.total;
  }

  template <class T>
  void upload_vec(Buf<T>& b, const std::vector<T>& v) {
    b.resize(v.size());
    ex_.upload(b.get(), v.data(), static_cast<std::int64_t>(v.size()));
  }
  /// Pointer arrays of one batched GEMM: entry q = base + q * stride (or the given per-run pointers).
  void make_gemm(Gemm& g, const std::vector<const S*>& a, const std::vector<const S*>& b, const std::vector<S*>& c) {
    upload_vec(g.a, a);
    upload_vec(g.b, b);
    upload_vec(g.c, c);
  }
  template <class P>
  static std::vector<P> strided(P base, std::int64_t stride, std::int64_t R) {
    std::vector<P> v;
    for (std::int64_t q = 0; q < R; ++q) v.push_back(base + q * stride);
    return v;
  }

  void allocate(Class& C, const std::vector<Run>& runs) {
    const LayerDims& L = C.P.L;
    const std::int64_t R = C.R, n = n_, mw = C.P.mw(), T = C.P.total;
    const auto sz = [](std::int64_t x) { return static_cast<std::size_t>(x > 0 ? x : 1); };
    C.theta.resize(sz(R * T));
    C.logits.resize(sz(R * L.m * n));
    C.G.resize(sz(R * L.m * n));
    C.slot_w.resize(sz(R * n * L.k));
    C.slot_e.resize(sz(R * n * L.k));
    C.H.resize(sz(R * mw * n));
    C.Hs.resize(sz(R * mw * n));
    C.Y.resize(sz(R * d_out_ * n));
    std::vector<const S*> xs;  // each member's batch
    for (int mbr : C.members) {
      const int g = C.student ? runs[static_cast<std::size_t>(mbr)].group : mbr;
      xs.push_back(X_.get() + static_cast<std::int64_t>(g) * d_ * n);
    }
    const S* theta = C.theta.get();
    make_gemm(C.router, strided<const S*>(theta + C.P.router_w, T, R), xs, strided<S*>(C.logits.get(), L.m * n, R));
    make_gemm(C.w1, strided<const S*>(theta + C.P.w1, T, R), xs, strided<S*>(C.H.get(), mw * n, R));
    make_gemm(C.w2, strided<const S*>(theta + C.P.w2, T, R), strided<const S*>(C.Hs.get(), mw * n, R), strided<S*>(C.Y.get(), d_out_ * n, R));
    if (!C.student) {
      std::vector<const S*> zeros;
      for (std::int64_t q = 0; q < R; ++q) {
        target_of_[static_cast<std::size_t>(C.members[static_cast<std::size_t>(q)])] = C.Y.get() + q * d_out_ * n;
        zeros.push_back(zeros_.get());
      }
      upload_vec(C.zero_targets, zeros);
      std::vector<int> index(C.members.begin(), C.members.end());
      upload_vec(C.index, index);
      return;
    }
    for (Buf<S>* b : {&C.grad, &C.m, &C.v}) b->resize(sz(R * T));
    ex_.zero(C.grad.get(), R * T);  // blocks no backward writes (an equal-weight router's) stay 0
    ex_.zero(C.m.get(), R * T);
    ex_.zero(C.v.get(), R * T);
    C.dY.resize(sz(R * d_out_ * n));
    C.dHs.resize(sz(R * mw * n));  // W2' dY, then the pre-activation gradient in place
    C.dg.resize(sz(R * n * L.k));
    C.dlogits.resize(sz(R * L.m * n));
    std::vector<const S*> targets;
    std::vector<int> index;
    std::vector<AdamWScalars<S>> table(static_cast<std::size_t>(steps_ * R));
    for (std::int64_t q = 0; q < R; ++q) {
      const int r = C.members[static_cast<std::size_t>(q)];
      const Run& run = runs[static_cast<std::size_t>(r)];
      targets.push_back(target_of_[static_cast<std::size_t>(run.group)]);
      index.push_back(r);
      for (std::int64_t t = 0; t < steps_; ++t) table[static_cast<std::size_t>(t * R + q)] = run.adamw[static_cast<std::size_t>(t)];
    }
    upload_vec(C.targets, targets);
    upload_vec(C.index, index);
    upload_vec(C.adamw, table);
    S* grad = C.grad.get();
    make_gemm(C.d_hs, strided<const S*>(theta + C.P.w2, T, R), strided<const S*>(C.dY.get(), d_out_ * n, R), strided<S*>(C.dHs.get(), mw * n, R));
    make_gemm(C.d_w2, strided<const S*>(C.dY.get(), d_out_ * n, R), strided<const S*>(C.Hs.get(), mw * n, R), strided<S*>(grad + C.P.w2, T, R));
    make_gemm(C.d_b2, strided<const S*>(C.dY.get(), d_out_ * n, R), strided<const S*>(C.G.get(), L.m * n, R), strided<S*>(grad + C.P.b2, T, R));
    make_gemm(C.d_w1, strided<const S*>(C.dHs.get(), mw * n, R), xs, strided<S*>(grad + C.P.w1, T, R));
    make_gemm(C.d_router, strided<const S*>(C.dlogits.get(), L.m * n, R), xs, strided<S*>(grad + C.P.router_w, T, R));
  }

  void gemm(const Class& C, const Gemm& g, bool ta, bool tb, int m, int n, int k, int lda, int ldb, int ldc) {
    ex_.template gemm_batched<S>(ta, tb, m, n, k, g.a.get(), lda, g.b.get(), ldb, g.c.get(), ldc, static_cast<int>(C.R));
  }

  void forward(Class& C) {
    const LayerDims& L = C.P.L;
    const int n = static_cast<int>(n_), mw = static_cast<int>(C.P.mw());
    if (L.has_router) gemm(C, C.router, false, false, L.m, n, L.d, L.m, L.d, L.m);
    ex_.for_each(C.R * n_, DenseRoute<S>{C.logits.get(), C.theta.get(), C.P, n_, C.P.total, C.slot_e.get(), C.slot_w.get(), C.G.get()});
    gemm(C, C.w1, false, false, mw, n, L.d, mw, L.d, mw);
    ex_.for_each(C.R * mw * n_, BiasReluGate<S>{C.H.get(), C.Hs.get(), C.G.get(), C.theta.get(), C.P, n_, C.P.total});
    gemm(C, C.w2, false, false, L.d_out, n, mw, L.d_out, mw, L.d_out);
    if (L.expert_bias)
      ex_.for_each(C.R * d_out_ * n_, AddGatedBias<S>{C.Y.get(), C.theta.get(), C.slot_e.get(), C.slot_w.get(), C.P, n_, C.P.total});
  }

  void backward(Class& C) {
    const LayerDims& L = C.P.L;
    const int n = static_cast<int>(n_), mw = static_cast<int>(C.P.mw());
    S* dhs = C.dHs.get();
    gemm(C, C.d_hs, true, false, mw, n, L.d_out, L.d_out, L.d_out, mw);            // dHs = W2' dY
    gemm(C, C.d_w2, false, true, L.d_out, mw, n, L.d_out, mw, L.d_out);            // dW2 = dY Hs'
    if (L.expert_bias) gemm(C, C.d_b2, false, true, L.d_out, L.m, n, L.d_out, L.m, L.d_out);  // db2 = dY G'
    const bool need_dg = L.has_router && L.weights == Weights::softmax;
    if (need_dg)
      ex_.for_each(C.R * n_ * L.k, DenseSlotWeightGradient<S>{dhs, C.H.get(), C.dY.get(), C.theta.get(), C.slot_e.get(), C.P, n_, C.P.total, C.dg.get()});
    ex_.for_each(C.R * mw * n_, DenseReluBackward<S>{dhs, C.H.get(), C.G.get(), C.P, n_});
    gemm(C, C.d_w1, false, true, mw, L.d, n, mw, L.d, mw);  // dW1 = dPre X'
    if (L.expert_bias) ex_.for_each(C.R * mw, RunRowSum<S>{dhs, mw, n_, C.P.total, C.P.b1, C.grad.get()});
    if (!need_dg) return;
    ex_.for_each(C.R * n_, DenseSoftmaxBackward<S>{C.slot_e.get(), C.slot_w.get(), C.dg.get(), L.m, L.k, C.dlogits.get()});
    gemm(C, C.d_router, false, true, L.m, L.d, n, L.m, L.d, L.m);  // dR = dlogits X'
    if (L.router_bias) ex_.for_each(C.R * L.m, RunRowSum<S>{C.dlogits.get(), L.m, n_, C.P.total, C.P.router_b, C.grad.get()});
  }

  std::vector<double> over_test_set(std::int64_t test_size, bool students) {
    if (test_size < 1) throw std::invalid_argument("DenseEnsembleCore: test_size must be positive");
    const int count_of = students ? runs_ : groups_;
    ex_.zero(acc_.get(), count_of);
    for (std::int64_t i0 = 0; i0 < test_size; i0 += n_) {
      const std::int64_t c = test_size - i0 < n_ ? test_size - i0 : n_;
      ex_.for_each(groups_ * d_ * n_, GroupInputs<S>{X_.get(), seeds_.get(), StreamTag::moe_test_data, nullptr, 0, d_ * n_, c * d_, i0 * d_});
      for (auto& cl : classes_)
        if (!cl->student) forward(*cl);
      for (auto& cl : classes_) {
        Class& C = *cl;
        if (C.student != students) continue;
        if (students) forward(C);
        ex_.for_each(C.R * n_, RunColumnSquaredError<S>{C.Y.get(), students ? C.targets.get() : C.zero_targets.get(), d_out_, n_, c, col_.get()});
        ex_.for_each(C.R, RunAccumulate{col_.get(), n_, c, C.index.get(), acc_.get()});
      }
    }
    std::vector<double> out(static_cast<std::size_t>(count_of));
    ex_.download(out.data(), acc_.get(), count_of);
    for (double& v : out) v /= students ? static_cast<double>(test_size) * d_out_ : static_cast<double>(test_size);
    return out;
  }

  Exec& ex_;
  std::int64_t n_, steps_, train_size_;
  bool training_set_ready_ = false;
  int runs_, groups_, d_ = 0, d_out_ = 0;
  std::vector<std::unique_ptr<Class>> classes_;
  std::vector<std::pair<int, std::int64_t>> run_slot_, group_slot_;  // (class, index in class)
  std::vector<S*> target_of_;
  Buf<S> X_, zeros_, train_x_, train_t_;
  Buf<S*> targets_;  // each group's teacher output slot (the targets of its runs)
  Buf<int> order_;
  Buf<std::uint64_t> seeds_;
  Buf<std::int64_t> step_;
  Buf<double> losses_, acc_, col_;
};

}  // namespace moelab::moe::hd
