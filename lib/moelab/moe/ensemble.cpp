#include "moelab/moe/ensemble.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>

#include <fmt/format.h>

#include "moelab/core/error.hpp"
#include "moelab/core/parallel.hpp"

namespace moelab::moe {

double step_flops(const TrainConfig& cfg) {
  const double b = static_cast<double>(cfg.batch);
  return b * (6.0 * static_cast<double>(active_parameter_count(cfg.student)) + 2.0 * static_cast<double>(active_parameter_count(cfg.teacher)));
}

template <class S>
void step_group(const TeacherData<S>& data, std::span<TeacherStudent<S>* const> runs, std::int64_t last) {
  typename TeacherData<S>::Mat X, T;
  std::int64_t t = std::numeric_limits<std::int64_t>::max(), end = 0;
  for (const auto* r : runs) {
    MOELAB_EXPECT(&r->data() == &data, "step_group: a run of another data group");
    const std::int64_t target = std::min(last, r->config().steps);
    if (r->step() < target) t = std::min(t, r->step()), end = std::max(end, target);
  }
  for (; t < end; ++t) {
    bool drawn = false;
    for (auto* r : runs) {
      if (r->step() != t || t >= std::min(last, r->config().steps)) continue;
      if (!drawn) data.batch_for_step(t, X, T), drawn = true;
      r->step_on(X, T);
    }
  }
}

template <class S>
Ensemble<S>::Ensemble(const std::vector<TrainConfig>& runs) {
  std::map<std::string, std::size_t> by_key;
  std::vector<const TrainConfig*> first;  // the configuration that builds each group's data
  group_of_.resize(runs.size());
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const auto [it, added] = by_key.emplace(TeacherData<S>::data_key(runs[r]), groups_.size());
    if (added) groups_.emplace_back(), first.push_back(&runs[r]);
    group_of_[r] = it->second;
    groups_[it->second].runs.push_back(r);
    groups_[it->second].work += step_flops(runs[r]);
  }
  // The data of every group (teacher, test set, its targets) in parallel; then the students (cheap).
  parallel_for(groups_.size(), [&](std::size_t g) { groups_[g].data = std::make_shared<const TeacherData<S>>(*first[g]); });
  runs_.resize(runs.size());
  for (std::size_t r = 0; r < runs.size(); ++r)
    runs_[r] = std::make_unique<TeacherStudent<S>>(runs[r], groups_[group_of_[r]].data);
}

template <class S>
std::int64_t Ensemble<S>::current_step() const {
  std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = 0;
  for (const auto& r : runs_) {
    if (!r->finished()) lo = std::min(lo, r->step());
    hi = std::max(hi, r->step());
  }
  return lo == std::numeric_limits<std::int64_t>::max() ? hi : lo;
}

template <class S>
void Ensemble<S>::train_until(std::int64_t last) {
  // Largest groups first (dynamic schedule): the order does not change any run's bytes.
  std::vector<std::size_t> order(groups_.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return groups_[a].work > groups_[b].work; });
  const auto body = [&](std::size_t i) {
    const Group& g = groups_[order[i]];
    std::vector<TeacherStudent<S>*> rs;
    for (std::size_t r : g.runs) rs.push_back(runs_[r].get());
    step_group<S>(*g.data, std::span<TeacherStudent<S>* const>(rs), last);
  };
  if (groups_.size() > 1 && num_threads() > 1)
    parallel_for(groups_.size(), body);
  else
    for (std::size_t i = 0; i < groups_.size(); ++i) body(i);
}

template <class S>
void Ensemble<S>::step() {
  train_until(current_step() + 1);
}

template <class S>
void Ensemble<S>::save(const std::string& prefix) const {
  for (std::size_t r = 0; r < runs_.size(); ++r) runs_[r]->save(fmt::format("{}run{}.ck", prefix, r));
}

template <class S>
void Ensemble<S>::load(const std::string& prefix) {
  for (std::size_t r = 0; r < runs_.size(); ++r) runs_[r]->load(fmt::format("{}run{}.ck", prefix, r));
}

template void step_group<float>(const TeacherData<float>&, std::span<TeacherStudent<float>* const>, std::int64_t);
template void step_group<double>(const TeacherData<double>&, std::span<TeacherStudent<double>* const>, std::int64_t);
template class Ensemble<float>;
template class Ensemble<double>;

}  // namespace moelab::moe
