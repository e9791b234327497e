// A study is data plus two or three functions (DESIGN.md, Layers): its name and summary, its
// parameters declared once (key, type, domain, default, unit, doc), its named output columns, what
// one trial is, and either
//   trial(point, ctx, t) -> T   and   reduce(point, trials, rows)      (Monte-Carlo over trials), or
//   evaluate(point, ctx, rows)                                          (closed forms, or a simulator
//                                                                        that parallelises inside).
// The runner (scenario/runner.hpp) owns the loop over sweep points, the validation of every point
// before anything runs, the parallel trials, the fixed-order reduction, the progress bar and the
// random keys; `moelab describe <study>` prints the declaration. Rows are built and read by column
// name (RowSink, TableView), never by position.
#pragma once

#include <any>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "moelab/core/backend.hpp"
#include "moelab/core/csv.hpp"
#include "moelab/core/error.hpp"
#include "moelab/core/interrupt.hpp"
#include "moelab/core/keys.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/core/progress.hpp"
#include "moelab/scenario/params.hpp"
#include "moelab/scenario/scenario.hpp"

namespace moelab {

using CsvRow = std::vector<CsvCell>;

// ---------------------------------------------------------------------------------------------
// Parameters, declared once.

enum class ParamType { integer, real, boolean, choice, text, real_list, integer_list, real_matrix, table };
const char* to_string(ParamType t);

/// One declared parameter. Build with the helpers below: `integer("params.n", "samples per fit")
/// .at_least(1).unit("samples")`. Integers are 64-bit and bounded by [min, max]; the default max is
/// 2^31 - 1 so that no study narrows a larger value silently.
struct ParamDecl {
  std::string key;
  ParamType type = ParamType::real;
  std::string doc;
  std::string unit_text;
  std::optional<CsvCell> fallback;  // default (a number or a string); none = required unless `optional`
  bool may_be_absent = false;       // absent is meaningful (the study asks `has`)
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_open = false;  // min < x rather than min <= x
  bool max_open = false;  // x < max rather than x <= max
  std::vector<std::string> choices;

  ParamDecl& at_least(double v) { min = v, min_open = false; return *this; }
  ParamDecl& positive() { min = 0.0, min_open = true; return *this; }
  ParamDecl& nonnegative() { min = 0.0, min_open = false; return *this; }
  ParamDecl& at_most(double v) { max = v, max_open = false; return *this; }
  ParamDecl& below(double v) { max = v, max_open = true; return *this; }
  ParamDecl& in(double lo, double hi) { min = lo, max = hi, min_open = false, max_open = false; return *this; }
  /// True when x lies in the declared domain.
  bool admits(double x) const { return x >= min && x <= max && !(min_open && x == min) && !(max_open && x == max); }
  ParamDecl& unit(std::string u) { unit_text = std::move(u); return *this; }
  ParamDecl& or_default(double v) { fallback = v; return *this; }
  ParamDecl& or_default(std::int64_t v) { fallback = v; return *this; }
  ParamDecl& or_default(int v) { fallback = std::int64_t{v}; return *this; }
  ParamDecl& or_default(bool v) { fallback = std::int64_t{v ? 1 : 0}; return *this; }
  ParamDecl& or_default(std::string v) { fallback = std::move(v); return *this; }
  ParamDecl& or_default(const char* v) { fallback = std::string(v); return *this; }
  /// The key may be left out; the study tests `has(key)`.
  ParamDecl& optional() { may_be_absent = true; return *this; }
  /// "integer >= 1", "real > 0", "one of gaussian, rademacher", ...
  std::string domain_text() const;
  std::string default_text() const;
};

ParamDecl integer(std::string key, std::string doc);
ParamDecl real(std::string key, std::string doc);
ParamDecl boolean(std::string key, std::string doc);
ParamDecl choice(std::string key, std::vector<std::string> choices, std::string doc);
ParamDecl text(std::string key, std::string doc);
ParamDecl real_list(std::string key, std::string doc);
ParamDecl integer_list(std::string key, std::string doc);
ParamDecl real_matrix(std::string key, std::string doc);
/// A sub-table the study parses itself (e.g. `model`, read by noisy::parse_model); described by doc.
ParamDecl table(std::string key, std::string doc);

/// One sweep point's parameters, validated against the declarations before the study sees them.
/// Reading a key that was not declared is an internal error (the declaration is the contract).
class PointParams {
 public:
  /// `backend`: where the point will run (already resolved), for checks that depend on it.
  PointParams(const ParamView& view, const std::vector<ParamDecl>& decls, Backend backend = Backend::cpu);
  Backend backend() const { return backend_; }

  bool has(const std::string& key) const;
  std::int64_t integer(const std::string& key) const;
  /// The integer, checked against the declared domain, as an int (the declared max must fit).
  int small(const std::string& key) const;
  double real(const std::string& key) const;
  bool boolean(const std::string& key) const;
  std::string text(const std::string& key) const;  // text and choice
  std::vector<double> real_list(const std::string& key) const;
  std::vector<std::int64_t> integer_list(const std::string& key) const;
  std::vector<std::vector<double>> real_matrix(const std::string& key) const;
  /// The raw view, for sub-tables declared with `table(...)` and for cross-key checks.
  const ParamView& view() const { return view_; }
  /// Throws InputError naming the file, the key's line and `reason`.
  [[noreturn]] void fail(const std::string& key, const std::string& reason) const { view_.fail(key, reason); }

 private:
  const ParamDecl& decl(const std::string& key, ParamType want) const;
  const ParamView& view_;
  const std::vector<ParamDecl>& decls_;
  Backend backend_;
};

// ---------------------------------------------------------------------------------------------
// Columns and rows by name.

struct ColumnDecl {
  std::string name;
  std::string doc;
};

/// Collects the rows of a study; every cell is set by column name and every column must be set.
class RowSink {
 public:
  explicit RowSink(const std::vector<ColumnDecl>& columns);
  class Row {
   public:
    Row& set(const std::string& column, double v);
    Row& set(const std::string& column, std::int64_t v);
    Row& set(const std::string& column, int v) { return set(column, std::int64_t{v}); }
    Row& set(const std::string& column, std::string v);
    Row& set(const std::string& column, const char* v) { return set(column, std::string(v)); }

   private:
    friend class RowSink;
    Row(RowSink& sink, std::size_t index) : sink_(&sink), index_(index) {}
    RowSink* sink_;
    std::size_t index_;
  };
  /// Starts a new row; the previous one must be complete.
  Row row();
  /// Every row, each checked complete.
  std::vector<CsvRow> take();

 private:
  std::size_t column(const std::string& name) const;
  void check_complete(std::size_t r) const;
  const std::vector<ColumnDecl>& columns_;
  std::map<std::string, std::size_t> index_;
  std::vector<CsvRow> rows_;
  std::vector<std::vector<bool>> set_;
};

/// Reads a finished table by column name (summaries, plots, tests).
class TableView {
 public:
  explicit TableView(const CsvTable& t) : t_(t) {}
  std::size_t size() const { return t_.rows.size(); }
  double real(std::size_t row, const std::string& column) const;
  std::int64_t integer(std::size_t row, const std::string& column) const;
  const std::string& text(std::size_t row, const std::string& column) const;

 private:
  std::size_t column(const std::string& name) const;
  const CsvTable& t_;
};

// ---------------------------------------------------------------------------------------------
// The study form.

/// What a point's code sees when it runs.
struct RunContext {
  RngKey key;                 // this study and sweep point (hashed from suite seed, study, coordinates)
  std::int64_t trials = 0;    // the budget, in the study's trial unit
  Backend backend = Backend::cpu;
  Progress* progress = nullptr;  // advance(1) per trial for `evaluate` studies that loop themselves
  /// run_points only: a file prefix where the study may keep mid-run state between its points'
  /// completions (the device ensemble's checkpoint), next to the run's journal; restored by a later
  /// run when its fingerprint matches, removed when the points are done. Empty: no journal, no state.
  std::string state_path;
  /// Records finished units; throws Interrupted once SIGINT/SIGTERM was received (a study's own
  /// loop stops within one unit of a Ctrl-C).
  void advance(std::size_t units = 1) const {
    if (progress) progress->advance(units);
    check_interrupted();
  }
};

/// What one sweep point will cost, estimated from its parameters before
/// anything runs: `bytes`, the peak memory the point holds while it runs (all threads together), and
/// `work`, its floating-point operations (order of magnitude is enough). The runner refuses (exit 2) a
/// run whose largest point exceeds the memory limit and prints the estimate of long runs. Doubles, so
/// that absurd parameters give large numbers rather than a wrapped integer. `ops_per_second`: the rate
/// per thread at which this study's `work` was measured to run (0: the runner's nominal 1e9), so that
/// the printed time of a GEMM-bound trainer is not off by an order of magnitude.
struct StudyCost {
  double bytes = 0.0;
  double work = 0.0;
  double ops_per_second = 0.0;
};

using Metadata = std::vector<std::pair<std::string, std::string>>;

struct StudyDef {
  std::string name;     // "topic.what", e.g. "noisy.excess_risk"
  std::string summary;  // one line for `moelab list`
  std::string trial_unit = "trials";  // what one trial is ("fitted models", "random matrices"); "" = deterministic
  std::int64_t min_trials = 1;        // fewest trials the study can summarise (e.g. 2 for a standard error)
  std::vector<ParamDecl> params;
  std::vector<ColumnDecl> columns;
  CudaPath cuda = CudaPath::none;
  std::string figure;  // the figure/table/theorem it reproduces (for describe / docs)

  // Filled by define_trial_study / define_study:
  std::function<std::any(const PointParams&)> prepare;                              // validates, returns the point
  std::function<std::size_t(const std::any&, std::int64_t trials)> work;            // progress units
  std::function<void(const std::any&, const RunContext&, RowSink&)> run;
  std::function<Metadata(const TableView&)> summarize;  // optional: metadata over all rows
  /// Optional cost model of one point (set with set_cost<Point>); without it the runner counts only
  /// what the frame itself holds (the trial results of define_trial_study, the rows).
  std::function<StudyCost(const std::any&, std::int64_t trials)> cost;
  double result_bytes_per_trial = 0.0;  // sizeof(T) of define_trial_study (the results kept until reduce)
  /// Set by define_trial_study when T is trivially copyable: the results of trials [begin, end) as
  /// bytes, and the reduction of every trial's bytes in trial order. The runner uses them to shard
  /// one point's trials over MPI ranks (runner.hpp); `run` is the same as both on one rank.
  std::function<std::string(const std::any&, const RunContext&, std::int64_t begin, std::int64_t end)> trial_block;
  std::function<void(const std::any&, const std::string& results, const RunContext&, RowSink&)> reduce_block;
  /// Optional: runs several sweep points together (an ensemble over points: moe.teacher_student trains
  /// every run of a scenario as one batch). ctx[i] is point i's context; `done(i, rows)` receives
  /// point i's rows as soon as the point completes, one call at a time (on any thread). The runner
  /// uses it instead of `run` for the points it runs whole; every point's rows equal `run`'s.
  using PointsDone = std::function<void(std::size_t, std::vector<CsvRow>)>;
  std::function<void(std::span<const std::any* const> points, std::span<const RunContext> ctx, const PointsDone& done)> run_points;

  std::vector<std::string> column_names() const;
};

/// Monte-Carlo form: `trial` runs one trial (on any thread; must depend only on (point, ctx.key, t));
/// `reduce` sees every trial's result in trial order and emits the point's rows.
template <class Point, class T>
StudyDef define_trial_study(StudyDef def, std::function<Point(const PointParams&)> prepare,
                            std::function<T(const Point&, const RunContext&, std::int64_t t)> trial,
                            std::function<void(const Point&, std::span<const T>, const RunContext&, RowSink&)> reduce) {
  def.prepare = [prepare](const PointParams& p) { return std::any(prepare(p)); };
  def.work = [](const std::any&, std::int64_t trials) { return static_cast<std::size_t>(trials); };
  def.result_bytes_per_trial = static_cast<double>(sizeof(T));
  def.run = [trial, reduce](const std::any& a, const RunContext& ctx, RowSink& rows) {
    const Point& point = std::any_cast<const Point&>(a);
    const auto results = parallel_map<T>(static_cast<std::size_t>(ctx.trials), [&](std::size_t t) {
      T r = trial(point, ctx, static_cast<std::int64_t>(t));
      ctx.advance();
      return r;
    });
    reduce(point, std::span<const T>(results), ctx, rows);
  };
  if constexpr (std::is_trivially_copyable_v<T>) {
    def.trial_block = [trial](const std::any& a, const RunContext& ctx, std::int64_t begin, std::int64_t end) {
      const Point& point = std::any_cast<const Point&>(a);
      const auto results = parallel_map<T>(static_cast<std::size_t>(end - begin), [&](std::size_t i) {
        T r = trial(point, ctx, begin + static_cast<std::int64_t>(i));
        ctx.advance();
        return r;
      });
      return std::string(reinterpret_cast<const char*>(results.data()), results.size() * sizeof(T));
    };
    def.reduce_block = [reduce](const std::any& a, const std::string& bytes, const RunContext& ctx, RowSink& rows) {
      MOELAB_EXPECT(bytes.size() == static_cast<std::size_t>(ctx.trials) * sizeof(T), "trial blocks cover every trial");
      std::vector<T> results(static_cast<std::size_t>(ctx.trials));
      if (!results.empty()) std::memcpy(static_cast<void*>(results.data()), bytes.data(), bytes.size());
      reduce(std::any_cast<const Point&>(a), std::span<const T>(results), ctx, rows);
    };
  }
  return def;
}

/// Direct form: closed forms, or simulators that loop (and call ctx.advance) themselves.
/// `work` gives the progress units of a point (default 1).
template <class Point>
StudyDef define_study(StudyDef def, std::function<Point(const PointParams&)> prepare,
                      std::function<void(const Point&, const RunContext&, RowSink&)> evaluate,
                      std::function<std::size_t(const Point&, std::int64_t trials)> work = {}) {
  def.prepare = [prepare](const PointParams& p) { return std::any(prepare(p)); };
  def.work = [work](const std::any& a, std::int64_t trials) {
    return work ? work(std::any_cast<const Point&>(a), trials) : std::size_t{1};
  };
  def.run = [evaluate](const std::any& a, const RunContext& ctx, RowSink& rows) {
    evaluate(std::any_cast<const Point&>(a), ctx, rows);
  };
  return def;
}

/// Declares the cost model of a study built with define_trial_study / define_study over `Point`:
/// `cost(point, trials)` returns the point's peak bytes and its operations (StudyCost). For a trial
/// study give the memory of the trials running at once (threads x one trial's working set) and of
/// what the point keeps; the frame adds trials x sizeof(T) for the kept results itself.
///   set_cost<RiskPoint>(def, [](const RiskPoint& p, std::int64_t trials) {
///     return StudyCost{8.0 * p.n * p.d * num_threads(), 2.0 * p.n * p.d * p.d * trials}; });
template <class Point>
void set_cost(StudyDef& def, std::function<StudyCost(const Point&, std::int64_t trials)> cost) {
  def.cost = [cost](const std::any& a, std::int64_t trials) { return cost(std::any_cast<const Point&>(a), trials); };
}

/// `moelab describe`: parameters (key, type, domain, default, unit, doc) and columns, as text.
std::string describe_study(const StudyDef& s);

}  // namespace moelab
