// Claim on the noisy paper's MoEfication experiment (Sec. 5, Figs. 4, 5), checked on the synthetic
// network of the study moe.moefication (moefication.hpp; scenarios/moe_moefication.toml), by the
// study's own code (run_moefication_trial).
//
// moe.moefication.smaller_drop: the paper's Sec. 5 states (T5-base on SST-2, 96 experts) that
//   "sparsely activated models experience a smaller drop in accuracy at intermediate sparsity levels
//   when exposed to input noise compared to dense models". Checked at the intermediate sparsity s = 4
//   of E = 8 experts (nearest-centroid routing, the study's default) and Gaussian input noise
//   sigma = 0.5, paired over seeds (the same trained dense net, test inputs and noise for both):
//   printed "dense drop - MoEfied drop >= 0" (H0 E X >= 0, claims::lower_bound_test); control: the
//   nearest wrong statement "the MoEfied net is no more robust: dense drop - MoEfied drop <= 0" must
//   be rejected. The paper's second sentence ("sparse models consistently outperform their dense
//   counterparts under noisy conditions at these sparsity levels") is not claimed on this E = 8 network: there the
//   MoEfied accuracy under noise stays below the dense one's at every sparsity (docs/moe.md); the
//   note reports that paired gain so that the finding is visible in `check`. At the paper's
//   granularity (96 experts, 40 active: scenarios/moe_moefication_fig4.toml) the sign turns positive
//   under noise with an MLP router: that is moe.moefication.outperforms_under_noise below.
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "moelab/claims/claim.hpp"
#include "moelab/claims/evidence.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/core/stats.hpp"
#include "moelab/moe/detail/claim_support.hpp"
#include "moelab/moe/moefication.hpp"

namespace moelab::moe::detail {

namespace {

// --quick: 4 seeds of 600 steps (~1 s of CPU), inconclusive by design: at 8 seeds of 800 steps (12 s on
// the loaded machine) the paired gap was 0.024-0.034 +- 0.006-0.008 (suite seeds 1-3), a detectable
// deviation of 0.05-0.07 against the relevance 0.02, and the control's p (4e-4 .. 1e-2) stayed above
// the suite's level; deciding needs ~48 seeds (--full). 3 dof keep the control's t test far from the
// suite's level (t > 20 needed), so the verdict does not move with the suite seed.
constexpr std::int64_t kQuickSteps = 600, kQuickSeeds = 4, kFullSeeds = 48;

/// The planted task of both MoEfication scenarios (k = 4 blocks of 8 features, C = 4 classes, each
/// block's label net of width 16), the rest of the spec at its defaults.
MoeficationSpec scenario_task() {
  MoeficationSpec s;
  s.task.blocks = 4, s.task.block_dim = 8, s.task.classes = 4, s.task.teacher_width = 16;
  return s;
}

claims::Evidence check_moefication_smaller_drop(const claims::CheckBudget& b, const RngKey& key) {
  // The scenario's network (k = 4 blocks of 8, C = 4, H = 64, E = 8, centroid routing), trained for
  // fewer steps at --quick (the drop gap is a property of the trained net's block structure, present
  // from ~600 steps on: see the note's numbers), evaluated at sigma in {0, 0.5} and s = 4 only.
  MoeficationSpec s = scenario_task();
  s.hidden = 64, s.experts = 8, s.active = {4}, s.sigmas = {0.0, 0.5};
  s.router = MoefiedRouter::centroid;
  s.steps = b.pick<std::int64_t>(kQuickSteps, 1500), s.batch = 256, s.lr = 1e-2;
  s.calibration = 4096, s.test_size = b.pick<std::int64_t>(4096, 16384);
  const std::int64_t seeds = b.pick<std::int64_t>(kQuickSeeds, kFullSeeds);
  const auto runs = parallel_map<MoeficationRun>(static_cast<std::size_t>(seeds),
                                                 [&](std::size_t t) { return run_moefication_trial(s, key, static_cast<std::int64_t>(t)); });
  Welford gap, dense_drop, moe_drop, gain, dense_clean, moe_clean;
  for (const auto& r : runs) {
    const double dd = r.dense[0] - r.dense[1], md = r.moe[0] - r.moe[1];  // moe index: active level 0, sigma index
    gap.add(dd - md), dense_drop.add(dd), moe_drop.add(md), gain.add(r.moe[1] - r.dense[1]);
    dense_clean.add(r.dense[0]), moe_clean.add(r.moe[0]);
  }
  claims::Evidence e;
  e.printed = claims::lower_bound_test(
      "accuracy drop at sigma = 0.5, s = 4 of 8 experts: dense drop - MoEfied drop >= 0 (paired over seeds)", gap, 0.0);
  e.control(claims::upper_bound_test("the MoEfied net is no more robust: dense drop - MoEfied drop <= 0", gap, 0.0));
  // Relevance: 2 points of accuracy. The paper's evidence is the SST-2 development set (872
  // sentences): the binomial standard error of one accuracy there is ~1.4 points at 80%, so drop
  // differences below ~2 points are beneath what its figure can show.
  e.relevance = 0.02;
  e.note = fmt::format(
      "k = 4 blocks of 8 (d = 32), C = 4, dense ReLU net H = 64 trained {} online AdamW steps of 256 on clean inputs, "
      "MoEfied into E = 8 co-activation clusters, nearest-centroid routing to s = 4; {} test inputs, {} seeds. Clean "
      "accuracy: dense {:.4f}, MoEfied {:.4f}. Drop at sigma = 0.5: dense {:.4f} +- {:.2g}, MoEfied {:.4f} +- {:.2g}; "
      "paired gap {:.4f} +- {:.2g}. Not claimed (the paper's 'sparse models outperform dense under noise'): paired "
      "accuracy gain of the MoEfied net at sigma = 0.5 is {:.4f} +- {:.2g} (negative: its smaller drop comes with a lower "
      "clean accuracy).",
      s.steps, s.test_size, seeds, dense_clean.mean(), moe_clean.mean(), dense_drop.mean(), dense_drop.standard_error(),
      moe_drop.mean(), moe_drop.standard_error(), gap.mean(), gap.standard_error(), gain.mean(), gain.standard_error());
  return e;
}

// moe.moefication.outperforms_under_noise, the paper's second sentence, at its granularity: 96
// experts with 40 active and MoEfication's MLP selection (scenarios/moe_moefication_fig4.toml, H = 384
// neurons, 4 per expert). --full: the scenario's 16 seeds (suite seed 1: paired gain +0.0118 +- 0.0017 at
// sigma = 0.5, control p 2e-6; docs/moe.md); --quick: 4 seeds of a shorter training, inconclusive by design
// (3 dof: the control's one-sided t must exceed ~22 at the suite's level, against t ~ 3 expected; ~7 CPU-s).
// Not 2 seeds: accuracies on a fixed test set are multiples of 1/test_size, and at 2 seeds both paired
// gains came out equal at suite seeds 12 and 15 of 1..20, a zero standard error that decided the test.
constexpr std::int64_t kFig4QuickSeeds = 4, kFig4FullSeeds = 16;

claims::Evidence check_moefication_outperforms_under_noise(const claims::CheckBudget& b, const RngKey& key) {
  MoeficationSpec s = scenario_task();
  s.hidden = 384, s.experts = 96, s.active = {40}, s.sigmas = {0.0, 0.5};
  s.router = MoefiedRouter::mlp, s.router_width = 64;
  s.router_steps = b.pick<std::int64_t>(400, 1000);
  s.steps = b.pick<std::int64_t>(600, 1500), s.batch = 256, s.lr = 1e-2;
  s.calibration = 4096, s.test_size = b.pick<std::int64_t>(2048, 8192);
  const std::int64_t seeds = b.pick<std::int64_t>(kFig4QuickSeeds, kFig4FullSeeds);
  const auto runs = parallel_map<MoeficationRun>(static_cast<std::size_t>(seeds),
                                                 [&](std::size_t t) { return run_moefication_trial(s, key, static_cast<std::int64_t>(t)); });
  Welford gain, clean_gain, dense_noisy, moe_noisy, kept;
  for (const auto& r : runs) {
    gain.add(r.moe[1] - r.dense[1]), clean_gain.add(r.moe[0] - r.dense[0]);
    dense_noisy.add(r.dense[1]), moe_noisy.add(r.moe[1]), kept.add(r.kept_mass[1]);
  }
  claims::Evidence e;
  e.printed = claims::lower_bound_test(
      "accuracy at sigma = 0.5, s = 40 of 96 experts: MoEfied - dense >= 0 (paired over seeds)", gain, 0.0);
  e.control(claims::upper_bound_test("the MoEfied net is no more accurate under noise: MoEfied - dense <= 0", gain, 0.0));
  // Relevance: 2 points of accuracy, for the reason given at moe.moefication.smaller_drop (the SST-2
  // development set's binomial standard error of ~1.4 points at 80%).
  e.relevance = 0.02;
  e.note = fmt::format(
      "k = 4 blocks of 8 (d = 32), C = 4, dense ReLU net H = 384 trained {} online AdamW steps of 256 on clean inputs, "
      "MoEfied into E = 96 co-activation clusters, MLP router (width 64, {} steps) selecting s = 40; {} test inputs, {} "
      "seeds. Accuracy at sigma = 0.5: dense {:.4f}, MoEfied {:.4f} (kept clean activation mass {:.3f}); paired gain "
      "{:.4f} +- {:.2g}. Without noise the MoEfied net is less accurate: paired gain {:.4f} +- {:.2g}, so the paper's "
      "'outperform under noise' holds here only once the noise is large enough.",
      s.steps, s.router_steps, s.test_size, seeds, dense_noisy.mean(), moe_noisy.mean(), kept.mean(), gain.mean(),
      gain.standard_error(), clean_gain.mean(), clean_gain.standard_error());
  return e;
}

}  // namespace

void register_moefication_claims(claims::Registry& r) {
  r.add({"moe.moefication.smaller_drop", "noisy, Sec. 5 and Figs. 4-5 (MoEfication), on a synthetic network",
         "Sparsely activated (MoEfied) models experience a smaller drop in accuracy at intermediate sparsity levels when "
         "exposed to input noise compared to the dense model they were obtained from.",
         claims::ClaimKind::inequality, check_moefication_smaller_drop});
  r.add({"moe.moefication.outperforms_under_noise",
         "noisy, Sec. 5 and Figs. 4, 11 (MoEfication, 96 experts, MLP selection), on a synthetic network",
         "At these sparsity levels, sparse (MoEfied) models outperform their dense counterparts under noisy conditions.",
         claims::ClaimKind::inequality, check_moefication_outperforms_under_noise});
}

}  // namespace moelab::moe::detail
