#include "moelab/claims/verdict.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "moelab/core/distributed.hpp"
#include "moelab/core/error.hpp"
#include "moelab/core/journal.hpp"
#include "moelab/core/interrupt.hpp"
#include "moelab/core/progress.hpp"
#include "moelab/core/stats.hpp"
#include "moelab/core/version.hpp"
#include "moelab/claims/evidence.hpp"

namespace moelab::claims {

namespace {
std::string num(double x) { return std::isfinite(x) ? fmt::format("{:.6g}", x) : fmt::format("{}", x); }
/// The control reported in one-line summaries: the weakest (largest p).
const TestResult& weakest_control(const Evidence& e) {
  static const TestResult none{"none", 0.0, 0.0, 0.0, 1.0, 0};
  const TestResult* w = &none;
  for (const auto& c : e.controls)
    if (w == &none || c.p_value > w->p_value) w = &c;
  return *w;
}
}  // namespace

namespace {
/// How a test came out at the claim's level: not rejected; rejected with a deviation that matters;
/// rejected but confidently within the relevance (a detectable deviation that does not matter);
/// rejected with a deviation below the relevance that the test cannot bound below it.
enum class Reading { accepted, wrong, within, unclear };

/// A rejected Monte-Carlo test says "wrong" only when the measured deviation |estimate - reference|
/// reaches the relevance (NaN relevance: every rejection counts, as before). Exact and deterministic
/// tests (std_error 0) carry their own tolerance and are taken as they come out.
Reading read_test(const TestResult& t, bool rejected, double relevance, double level) {
  if (!rejected) return Reading::accepted;
  if (!(t.std_error > 0.0) || std::isnan(relevance)) return Reading::wrong;
  const double deviation = std::fabs(t.estimate - t.reference);
  if (deviation >= relevance) return Reading::wrong;
  return deviation + confidence_radius(t, level) <= relevance ? Reading::within : Reading::unclear;
}
}  // namespace

SuiteResult judge(std::vector<Outcome> outcomes, double alpha, std::size_t family) {
  // The level of every test is alpha / family, where `family` is the number of claims the registered
  // suite holds: a property of the suite, not of the selection, so a claim reaches the same verdict
  // alone, in any subset, from Python and under MPI (its verdict depends on its own evidence only).
  // `erratum`: the printed form rejected, the exact form not (or within the relevance); `fails`: the
  // printed form (and the exact one, if any) rejected with a deviation that reaches the relevance.
  // A rejected printed form whose deviation is within the relevance with confidence is `holds`, one
  // below it that the test cannot bound is `inconclusive`: detectable is not the same as mattering.
  // Bonferroni over the registered claims bounds the family-wise error: a claim can be wrongly
  // declared false only through a rejection of its one true form (the printed one, or the exact one
  // when the printed is wrong), each at level alpha / family.
  MOELAB_EXPECT(family >= outcomes.size() && family > 0, "judge: the registered suite holds every judged claim");
  MOELAB_EXPECT(alpha > 0.0 && alpha < 1.0, "judge: alpha in (0, 1)");
  const double level = alpha / static_cast<double>(family);
  const auto adjusted = [&](double p) { return std::min(1.0, p * static_cast<double>(family)); };
  for (auto& o : outcomes) {
    const Evidence& e = o.evidence;
    o.printed_p_adj = adjusted(e.printed.p_value);
    o.exact_p_adj = e.exact ? adjusted(e.exact->p_value) : 1.0;
    o.controls_rejected = 0;
    double worst_control_p = 0.0;
    for (const auto& c : e.controls) {
      if (c.p_value < level) ++o.controls_rejected;
      worst_control_p = std::max(worst_control_p, c.p_value);
    }
    o.control_rejected = !e.controls.empty() && o.controls_rejected == e.controls.size();
    o.relevance = resolved_relevance(e);
    o.min_detectable = min_detectable(e.printed, level);
    const double exact_mdd = e.exact ? min_detectable(*e.exact, level) : 0.0;
    const Reading printed = read_test(e.printed, e.printed.p_value < level, o.relevance, level);
    const Reading exact = e.exact ? read_test(*e.exact, e.exact->p_value < level, o.relevance, level) : Reading::wrong;
    const auto powered = [&](double mdd) { return !std::isnan(o.relevance) && mdd <= o.relevance; };
    const auto deviation = [](const TestResult& t) { return std::fabs(t.estimate - t.reference); };
    if (e.controls.empty()) {
      o.verdict = Verdict::inconclusive;
      o.reason = "no negative control: a check that cannot fail decides nothing";
    } else if (!o.control_rejected) {
      o.verdict = Verdict::inconclusive;
      o.reason = fmt::format("{} of {} negative controls rejected (weakest p = {:.3g} >= {:.3g}): the budget cannot tell a "
                             "wrong form from the right one; rerun with --full",
                             o.controls_rejected, e.controls.size(), worst_control_p, level);
    } else if (printed == Reading::accepted) {
      if (powered(o.min_detectable)) {
        o.verdict = Verdict::holds;
        o.reason = fmt::format("printed form not rejected (adjusted p = {:.3g}); it would detect a deviation of {} "
                               "(relevance {}) with power {}; controls rejected (worst p = {:.2g})",
                               o.printed_p_adj, num(o.min_detectable), num(o.relevance), kPower, worst_control_p);
      } else {
        o.verdict = Verdict::inconclusive;
        o.reason = std::isnan(o.relevance)
                       ? "printed form not rejected, but the claim states no relevance (smallest deviation that matters)"
                       : fmt::format("printed form not rejected (adjusted p = {:.3g}), but the test detects only deviations "
                                     "of {} or more with power {}, above the relevance {}; rerun with --full",
                                     o.printed_p_adj, num(o.min_detectable), kPower, num(o.relevance));
      }
    } else if (e.exact && exact != Reading::wrong) {
      if (exact == Reading::within || (exact == Reading::accepted && powered(exact_mdd))) {
        o.verdict = Verdict::erratum;
        o.reason = exact == Reading::within
                       ? fmt::format("printed form rejected (adjusted p = {:.3g}); the exact form's deviation {} is "
                                     "within the relevance {} with confidence",
                                     o.printed_p_adj, num(deviation(*e.exact)), num(o.relevance))
                       : fmt::format("printed form rejected (adjusted p = {:.3g}); exact form not rejected (adjusted p = "
                                     "{:.3g}, detectable deviation {} <= relevance {})",
                                     o.printed_p_adj, o.exact_p_adj, num(exact_mdd), num(o.relevance));
      } else {
        o.verdict = Verdict::inconclusive;
        o.reason = exact == Reading::unclear
                       ? fmt::format("printed form rejected (adjusted p = {:.3g}); exact form rejected with a deviation "
                                     "{} below the relevance {} that the test cannot bound below",
                                     o.printed_p_adj, num(deviation(*e.exact)), num(o.relevance))
                       : fmt::format("printed form rejected (adjusted p = {:.3g}); exact form not rejected but "
                                     "under-powered (detectable deviation {} > relevance {})",
                                     o.printed_p_adj, num(exact_mdd), num(o.relevance));
      }
    } else if (printed == Reading::within) {
      // Would be `fails` (no exact form, or the exact one is wrong too), but the deviation does not matter.
      o.verdict = Verdict::holds;
      o.reason = fmt::format("printed form rejected (adjusted p = {:.3g}), but its deviation {} is within the relevance {} "
                             "with confidence (bound {}): detectable, and too small to matter; controls rejected",
                             o.printed_p_adj, num(deviation(e.printed)), num(o.relevance),
                             num(deviation(e.printed) + confidence_radius(e.printed, level)));
    } else if (printed == Reading::unclear) {
      o.verdict = Verdict::inconclusive;
      o.reason = fmt::format("printed form rejected (adjusted p = {:.3g}) with a deviation of {}, below the relevance {}, "
                             "but the test cannot bound it below (bound {}): a deviation that may not matter; rerun "
                             "with --full",
                             o.printed_p_adj, num(deviation(e.printed)), num(o.relevance),
                             num(deviation(e.printed) + confidence_radius(e.printed, level)));
    } else {
      o.verdict = Verdict::fails;
      const std::string size = e.printed.std_error > 0.0 && !std::isnan(o.relevance)
                                   ? fmt::format(", deviation {} >= relevance {}", num(deviation(e.printed)), num(o.relevance))
                                   : std::string();
      o.reason = e.exact ? fmt::format("printed (adjusted p = {:.3g}{}) and exact (adjusted p = {:.3g}) forms both "
                                       "rejected",
                                       o.printed_p_adj, size, o.exact_p_adj)
                         : fmt::format("printed form rejected (adjusted p = {:.3g}{}); no exact form available",
                                       o.printed_p_adj, size);
    }
  }
  return {std::move(outcomes), alpha, family};
}

std::string documented_status(const Outcome& o, const CheckBudget& budget) {
  if (!o.documented) return "undocumented";
  if (*o.documented == o.verdict) return "as documented";
  if (budget.full && *o.documented == Verdict::inconclusive) return "decided at --full";
  return "changed";
}

std::size_t changed_count(const SuiteResult& r, const CheckBudget& budget) {
  std::size_t n = 0;
  for (const auto& o : r.outcomes) n += documented_status(o, budget) == "changed";
  return n;
}

SuiteResult run_suite(const std::vector<const Claim*>& claims, const CheckBudget& budget, double alpha,
                      std::size_t family, bool show_progress) {
  SuiteOptions options;
  options.show_progress = show_progress;
  auto runs = run_suites(claims, budget, {budget.seed}, alpha, family, options);
  if (runs.empty()) return SuiteResult{{}, alpha, family};  // a rank > 0
  return std::move(runs.front());
}

namespace {

// The journal holds every field of TestResult and Evidence: the judge reads them all. The structured
// bindings below name every data member, so adding a field to either struct stops this file from
// compiling until the field is written and read here too.
void put_test(ByteWriter& w, const TestResult& t) {
  const auto& [form, estimate, std_error, reference, p_value, samples, one_sided, dof, bonferroni] = t;
  w.str(form), w.f64(estimate), w.f64(std_error), w.f64(reference), w.f64(p_value), w.i64(samples);
  w.boolean(one_sided), w.f64(dof), w.i64(bonferroni);
}

TestResult get_test(ByteReader& r) {
  TestResult t;
  auto& [form, estimate, std_error, reference, p_value, samples, one_sided, dof, bonferroni] = t;
  form = r.str(), estimate = r.f64(), std_error = r.f64(), reference = r.f64(), p_value = r.f64();
  samples = r.i64(), one_sided = r.boolean(), dof = r.f64(), bonferroni = r.i64();
  return t;
}

/// A claim's evidence, exactly (doubles by their bits), with the claim's id (checked on resume) and its time.
std::string encode_evidence(const std::string& id, const Evidence& e, double seconds) {
  const auto& [printed, exact, controls, relevance, note] = e;
  ByteWriter w;
  w.str(id);
  put_test(w, printed);
  w.boolean(exact.has_value());
  if (exact) put_test(w, *exact);
  w.u64(controls.size());
  for (const auto& c : controls) put_test(w, c);
  w.f64(relevance), w.str(note), w.f64(seconds);
  return w.take();
}

Evidence decode_evidence(const std::string& payload, const std::string& id, double& seconds, const std::string& where,
                         std::uint64_t unit) {
  ByteReader r(payload);
  const std::string got = r.str();
  if (got != id)
    throw InputError(where, 0, "journal", fmt::format("unit {} is the claim '{}', but this run's unit {} is '{}'; rerun "
                                                      "without --resume", unit, printable(got), unit, id));
  Evidence e;
  auto& [printed, exact, controls, relevance, note] = e;
  printed = get_test(r);
  if (r.boolean()) exact = get_test(r);
  controls.resize(r.u64());
  for (auto& c : controls) c = get_test(r);
  relevance = r.f64(), note = r.str(), seconds = r.f64();
  return e;
}

}  // namespace

std::vector<SuiteResult> run_suites(const std::vector<const Claim*>& claims, const CheckBudget& budget,
                                    const std::vector<std::uint64_t>& seeds, double alpha, std::size_t family,
                                    const SuiteOptions& options) {
  Communicator& comm = world();
  const int ranks = comm.size(), rank = comm.rank();
  const bool root = rank == 0;
  const std::size_t n = claims.size(), units = n * seeds.size();
  std::vector<std::optional<Evidence>> evidence(units);
  std::vector<double> seconds(units, 0.0);
  std::unique_ptr<Journal> journal;
  std::exception_ptr failure;
  try {
    if (root && !options.journal.empty()) {
      std::string ids;
      for (const Claim* c : claims) ids += c->id + "\n";
      const JournalIdentity identity{{"kind", "check"},
                                     {"tool", tool_provenance()},
                                     {"command", options.command},
                                     {"budget", budget.full ? "full" : "quick"},
                                     {"seeds", fmt::format("{}..{}", seeds.front(), seeds.back())},
                                     {"claims", fmt::format("{} ({:016x})", n, fnv1a64(ids))}};
      journal = std::make_unique<Journal>(options.journal, identity, options.resume);
      for (const auto& [u, payload] : journal->records()) {
        if (u >= units)
          throw InputError(options.journal, 0, "journal", fmt::format("unit {} is past this run's {} units; rerun without --resume", u, units));
        evidence[u] = decode_evidence(payload, claims[u % n]->id, seconds[u], options.journal, u);
      }
    }
  } catch (...) {
    failure = std::current_exception();
  }
  agree_on_failure(failure);
  std::string mask(units, '0');
  if (root)
    for (std::size_t u = 0; u < units; ++u) mask[u] = evidence[u] ? '1' : '0';
  comm.broadcast(mask);
  std::vector<std::size_t> mine;
  std::size_t k = 0;
  for (std::size_t u = 0; u < units; ++u)
    if (mask[u] == '0' && static_cast<int>(k++ % static_cast<std::size_t>(ranks)) == rank) mine.push_back(u);

  Progress progress(mine.size(), ranks > 1 ? fmt::format("check (rank 0 of {})", ranks) : std::string("check"));
  if (!options.show_progress) Progress::set_enabled(false);
  const auto record = [&](std::size_t u, Evidence e, double s, const std::string* payload) {
    if (journal) journal->append(u, payload ? *payload : encode_evidence(claims[u % n]->id, e, s));
    evidence[u] = std::move(e);
    seconds[u] = s;
  };
  // Ranks > 0 post each claim's evidence to rank 0 as it completes; rank 0 journals them between its
  // own claims and, at the end, until every rank is done (core/distributed.hpp).
  ShardCollector collect(comm, failure, [&](std::uint64_t u, std::string payload) {
    MOELAB_EXPECT(u < units, "a rank sent a claim index past the suite");
    double s = 0;
    Evidence e = decode_evidence(payload, claims[u % n]->id, s, "<rank message>", u);
    record(static_cast<std::size_t>(u), std::move(e), s, &payload);
  });
  for (std::size_t u : mine) {
    if (failure) break;
    try {
      check_interrupted();
      const Claim* c = claims[u % n];
      CheckBudget b = budget;
      b.seed = seeds[u / n];
      const auto t0 = std::chrono::steady_clock::now();
      Evidence e = c->check(b, claim_key(b.seed, c->id));
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      progress.advance();
      if (root) {
        record(u, std::move(e), s, nullptr);
        collect.poll();
      } else {
        collect.post(u, encode_evidence(c->id, e, s));
      }
    } catch (...) {
      failure = std::current_exception();
    }
  }
  collect.finish();  // rank 0: every other rank's claims; then the failure agreement
  progress.finish();
  std::vector<SuiteResult> out;
  if (!root) return out;
  for (std::size_t s = 0; s < seeds.size(); ++s) {
    std::vector<Outcome> outcomes;
    for (std::size_t c = 0; c < n; ++c) {
      const std::size_t u = s * n + c;
      MOELAB_EXPECT(evidence[u].has_value(), "every claim has its evidence");
      Outcome o;
      o.claim = claims[c];
      o.evidence = std::move(*evidence[u]);
      o.seconds = seconds[u];
      outcomes.push_back(std::move(o));
    }
    out.push_back(judge(std::move(outcomes), alpha, family));
  }
  return out;
}

CsvTable suite_table(const SuiteResult& r, const CheckBudget& budget) {
  CsvTable t;
  t.add_metadata("tool", tool_provenance());
  t.add_metadata("command", budget.full ? "check --full" : "check --quick");
  t.add_metadata("seed", fmt::format("{}", budget.seed));
  // Only under --backend cuda (the CPU reference's check.csv keeps its bytes).
  if (budget.backend == Backend::cuda) t.add_metadata("backend", "cuda (claims with a device path ran there; the others on the CPU)");
  t.add_metadata("alpha", fmt::format("{}", r.alpha));
  t.add_metadata("family", fmt::format("every printed, exact and control test at alpha/{} ({} registered claims; "
                                       "adjusted p = {} p)", r.family_size, r.family_size, r.family_size));
  t.columns = {"id", "source", "kind", "verdict", "printed_estimate", "printed_std_error", "printed_reference",
               "printed_p", "printed_p_adj", "exact_estimate", "exact_std_error", "exact_reference", "exact_p",
               "exact_p_adj", "control_estimate", "control_reference", "control_p", "control_rejected",
               "samples", "note", "controls", "relevance", "min_detectable", "documented", "status"};
  const double nan = std::nan("");
  for (const auto& o : r.outcomes) {
    const auto& e = o.evidence;
    t.add_row({o.claim->id, o.claim->source, std::string(to_string(o.claim->kind)), std::string(to_string(o.verdict)),
               e.printed.estimate, e.printed.std_error, e.printed.reference, e.printed.p_value, o.printed_p_adj,
               e.exact ? e.exact->estimate : nan, e.exact ? e.exact->std_error : nan,
               e.exact ? e.exact->reference : nan, e.exact ? e.exact->p_value : nan,
               e.exact ? o.exact_p_adj : nan, weakest_control(e).estimate, weakest_control(e).reference,
               weakest_control(e).p_value, std::string(o.control_rejected ? "yes" : "no"),
               static_cast<std::int64_t>(e.printed.samples + (e.exact ? e.exact->samples : 0)), e.note,
               static_cast<std::int64_t>(e.controls.size()), o.relevance, o.min_detectable,
               std::string(o.documented ? to_string(*o.documented) : "-"), documented_status(o, budget)});
  }
  return t;
}

std::string suite_markdown(const SuiteResult& r, const CheckBudget& budget) {
  std::string md = fmt::format("# moelab check ({}), seed {}\n\n", budget.full ? "--full" : "--quick", budget.seed);
  md += fmt::format("Family-wise error: alpha = {} over the {} registered claims (Bonferroni): every printed, exact and "
                    "control test is judged at alpha / {}, whichever claims run, so a claim's verdict depends on its "
                    "own evidence only. `holds` needs power 0.9 there against the claim's relevance; `fails` and "
                    "`erratum` need the measured deviation to reach that relevance. Adjusted p = {} x p.\n\n",
                    r.alpha, r.family_size, r.family_size, r.family_size);
  md += fmt::format("Against the documented verdicts (docs/claims.md): {} of {} as documented, {} changed.\n\n",
                    std::count_if(r.outcomes.begin(), r.outcomes.end(),
                                  [&](const Outcome& o) { return documented_status(o, budget) == "as documented"; }),
                    r.outcomes.size(), changed_count(r, budget));
  md += "| claim | source | verdict | vs documented | printed: estimate vs closed form | exact: closed form | control p |\n";
  md += "|---|---|---|---|---|---|---|\n";
  for (const auto& o : r.outcomes) {
    const auto& e = o.evidence;
    md += fmt::format("| `{}` | {} | **{}** | {} | {} ± {} vs {} (p_adj {:.3g}) | {} | {:.2g} |\n", o.claim->id,
                      o.claim->source, to_string(o.verdict),
                      o.documented && *o.documented != o.verdict
                          ? fmt::format("{} (documented: {})", documented_status(o, budget), to_string(*o.documented))
                          : documented_status(o, budget),
                      num(e.printed.estimate), num(e.printed.std_error),
                      num(e.printed.reference), o.printed_p_adj,
                      e.exact ? fmt::format("{} (p_adj {:.3g})", num(e.exact->reference), o.exact_p_adj) : "-",
                      weakest_control(e).p_value);
  }
  md += "\n## Details\n";
  for (const auto& o : r.outcomes) {
    md += fmt::format("\n### `{}` — {}\n\n{} ({})\n\n- verdict: **{}** — {}\n- printed test: {}\n", o.claim->id,
                      o.claim->source, o.claim->statement, to_string(o.claim->kind), to_string(o.verdict), o.reason,
                      o.evidence.printed.form);
    if (o.evidence.exact) md += fmt::format("- exact test: {}\n", o.evidence.exact->form);
    for (const auto& c : o.evidence.controls)
      md += fmt::format("- negative control: {} (estimate {}, reference {}, p = {:.2g})\n", c.form, num(c.estimate),
                        num(c.reference), c.p_value);
    md += fmt::format("- power: detects a deviation of {} with power {} (relevance {})\n", num(o.min_detectable), kPower,
                      num(o.relevance));
    if (!o.evidence.note.empty()) md += fmt::format("- {}\n", o.evidence.note);
  }
  return md;
}

std::string suite_terminal(const SuiteResult& r, const CheckBudget& budget) {
  std::string s = fmt::format("{:<44} {:<13} {:>13} {:>13} {:>10}  {:<12}  {}\n", "claim", "verdict", "estimate",
                              "printed", "p_adj", "control", "vs documented");
  int counts[4] = {0, 0, 0, 0};
  for (const auto& o : r.outcomes) {
    ++counts[static_cast<int>(o.verdict)];
    const std::string status = documented_status(o, budget);
    s += fmt::format("{:<44} {:<13} {:>13} {:>13} {:>10.3g}  {:<12}  {}\n", o.claim->id, to_string(o.verdict),
                     num(o.evidence.printed.estimate), num(o.evidence.printed.reference), o.printed_p_adj,
                     o.control_rejected ? "rejected" : "NOT rejected",
                     status == "changed" ? fmt::format("CHANGED (documented: {})", to_string(*o.documented)) : status);
  }
  s += fmt::format("\n{} claims: {} hold, {} erratum, {} fail, {} inconclusive (alpha = {} over {} registered claims)\n",
                   r.outcomes.size(), counts[0], counts[2], counts[1], counts[3], r.alpha, r.family_size);
  const std::size_t changed = changed_count(r, budget);
  s += changed == 0 ? std::string("every verdict is as documented (docs/claims.md)\n")
                    : fmt::format("{} verdict(s) changed against the documented ones (docs/claims.md): see CHANGED above\n",
                                  changed);
  return s;
}

Stability verdict_stability(const std::vector<SuiteResult>& runs, const std::vector<std::uint64_t>& seeds,
                            const CheckBudget& budget) {
  MOELAB_EXPECT(!runs.empty() && runs.size() == seeds.size(), "one suite per seed");
  Stability st;
  CsvTable& t = st.table;
  t.add_metadata("tool", tool_provenance());
  t.add_metadata("command", fmt::format("check {} --seeds {}..{}", budget.full ? "--full" : "--quick", seeds.front(),
                                        seeds.back()));
  t.columns = {"id", "seeds", "holds", "erratum", "fails", "inconclusive", "modal", "changes", "other_seeds"};
  std::string md = fmt::format("# Verdict stability: `moelab check {} --seeds {}..{}` ({} seeds)\n\n",
                               budget.full ? "--full" : "--quick", seeds.front(), seeds.back(), seeds.size());
  md += "| claim | holds | erratum | fails | inconclusive | modal | seeds that differ |\n|---|---|---|---|---|---|---|\n";
  std::size_t unstable = 0;
  const std::size_t n = runs.front().outcomes.size();
  for (std::size_t c = 0; c < n; ++c) {
    int count[4] = {0, 0, 0, 0};
    for (const auto& r : runs) {
      MOELAB_EXPECT(r.outcomes.size() == n && r.outcomes[c].claim == runs.front().outcomes[c].claim, "same claims per seed");
      ++count[static_cast<int>(r.outcomes[c].verdict)];
    }
    int modal = 0;
    for (int v = 1; v < 4; ++v)
      if (count[v] > count[modal]) modal = v;
    std::string others;
    std::size_t changes = 0;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const Verdict v = runs[i].outcomes[c].verdict;
      if (static_cast<int>(v) == modal) continue;
      ++changes;
      others += fmt::format("{}{}:{}", others.empty() ? "" : " ", seeds[i], to_string(v));
    }
    st.changes += changes;
    unstable += changes > 0;
    const auto* claim = runs.front().outcomes[c].claim;
    const char* modal_name = to_string(static_cast<Verdict>(modal));
    t.add_row({claim->id, static_cast<std::int64_t>(runs.size()), std::int64_t{count[0]}, std::int64_t{count[2]},
               std::int64_t{count[1]}, std::int64_t{count[3]}, std::string(modal_name), static_cast<std::int64_t>(changes),
               others});
    md += fmt::format("| `{}` | {} | {} | {} | {} | {} | {} |\n", claim->id, count[0], count[2], count[1], count[3],
                      modal_name, others.empty() ? "-" : others);
  }
  md += fmt::format("\n{} verdict changes over {} claims x {} seeds; {} claims not stable.\n", st.changes, n, runs.size(),
                    unstable);
  t.add_metadata("changes", fmt::format("{}", st.changes));
  st.markdown = std::move(md);
  return st;
}

}  // namespace moelab::claims
