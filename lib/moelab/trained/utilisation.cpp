// Expert utilisation against k (utilisation.hpp).
#include "moelab/trained/utilisation.hpp"

#include <algorithm>
#include <cmath>

#include "moelab/core/error.hpp"
#include "moelab/trained/scaling_experiment.hpp"

namespace moelab::trained {

Utilisation routing_utilisation(const std::vector<std::uint64_t>& masks, int T) {
  MOELAB_EXPECT(T >= 1 && T <= 64, "routing_utilisation: 1 <= T <= 64");
  MOELAB_EXPECT(!masks.empty(), "routing_utilisation: at least one mask");
  // The masks' count and effective number are scaling_experiment's routing_usage; the per-expert load here.
  std::vector<double> load(static_cast<std::size_t>(T), 0.0);
  for (auto m : masks)
    for (int j = 0; j < T; ++j)
      if (m >> j & 1u) load[static_cast<std::size_t>(j)] += 1.0;
  const RoutingUsage usage = routing_usage(masks);
  Utilisation u;
  u.distinct_masks = usage.distinct;
  u.effective_masks = usage.effective;
  double total = 0.0, top = 0.0;
  int dead = 0;
  for (double l : load) total += l, top = std::max(top, l), dead += l == 0.0;
  MOELAB_EXPECT(total > 0.0, "routing_utilisation: masks select at least one expert");
  double he = 0.0;
  for (double l : load)
    if (l > 0.0) he -= (l / total) * std::log(l / total);
  u.effective_experts = std::exp(he);
  u.load_max_over_mean = top / (total / T);
  u.dead_fraction = static_cast<double>(dead) / T;
  return u;
}

UtilisationRun run_utilisation_trial(const CompositionalSpec& spec, const RngKey& key, std::int64_t trial) {
  UtilisationRun r;
  Model model(moe::MoeShape{});
  r.run = run_compositional_trial(spec, key, trial, {}, &model);
  // The run's ID test problems: the same draw as run_compositional_trial's (seed key.with("data", trial)).
  const CompositionalTask task = make_task(spec, key);
  const auto test = task.draw(spec.test_size, key.with("data", trial).seed(), StreamTag::moe_test_data, false);
  r.usage = routing_utilisation(router_masks(model, test.X), spec.T);
  return r;
}

}  // namespace moelab::trained
