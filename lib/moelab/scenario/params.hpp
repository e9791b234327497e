// Typed, validated access to the parameters of one scenario sweep point (a TOML table).
// Every getter that fails throws InputError naming the file, the line of the offending value (or of
// its table when the key is missing), the dotted key, and the reason. After a study has read what it
// needs, check_all_used() rejects any key nobody asked for ("unknown key"), so typos never pass
// silently.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <toml++/toml.h>

namespace moelab {

/// "a.b.c" -> {"a", "b", "c"} (a dotted parameter path; no quoting).
std::vector<std::string> split_dotted_key(const std::string& key);

/// An owned TOML node (toml++ keeps its own alias in toml::impl, which is not public API).
using toml_node_ptr = std::unique_ptr<toml::node>;

/// One value laid over a base table: `key` (dotted, e.g. "model.experts") reads as `value`. The node
/// is borrowed (a sweep axis owns it). toml++ offers no way to set a node's source position, so the
/// position of the value is carried here: for a parsed value it is the node's own, for a generated
/// one (a {from, to, steps} axis) it is the axis's line in [sweep]. Entries of an array or table
/// value keep their own positions.
struct ParamOverride {
  std::string key;
  const toml::node* value = nullptr;
  int line = 0;
  int column = 0;
};

class ParamView {
 public:
  /// `table` is borrowed and must outlive the view; `file` is used in messages.
  ParamView(const toml::table& table, std::string file);
  /// The overlay of `overrides` on `base` (a sweep point): each override's key reads as its value,
  /// creating the tables on its path when the base lacks them; every other key reads from `base`.
  /// Lines are the override's for overridden keys and the base's otherwise. No override's key may
  /// lie inside another's. `base` and the override values are borrowed and must outlive the view.
  ParamView(const toml::table& base, std::vector<ParamOverride> overrides, std::string file);

  const std::string& file() const { return file_; }
  bool has(const std::string& dotted_key) const;

  // Getters: the key is a dotted path ("model.sigma2"). Integers are accepted where doubles are
  // asked for; doubles are not accepted for integers. Each marks the key used.
  double get_double(const std::string& key) const;
  double get_double(const std::string& key, double fallback) const;
  std::int64_t get_int(const std::string& key) const;
  std::int64_t get_int(const std::string& key, std::int64_t fallback) const;
  bool get_bool(const std::string& key, bool fallback) const;
  std::string get_string(const std::string& key) const;
  std::string get_string(const std::string& key, const std::string& fallback) const;
  /// The value must be one of `choices`; the message lists them.
  std::string get_choice(const std::string& key, const std::vector<std::string>& choices,
                         const std::string& fallback) const;
  std::vector<double> get_double_array(const std::string& key) const;
  std::vector<std::int64_t> get_int_array(const std::string& key) const;
  /// Array of arrays of numbers (a matrix), row-major.
  std::vector<std::vector<double>> get_double_matrix(const std::string& key) const;

  // Domain-checked getters (the message states the domain and the value).
  double get_positive(const std::string& key) const;                    // > 0
  double get_positive(const std::string& key, double fallback) const;   // > 0
  double get_nonnegative(const std::string& key, double fallback) const;  // >= 0
  std::int64_t get_int_at_least(const std::string& key, std::int64_t min) const;
  std::int64_t get_int_at_least(const std::string& key, std::int64_t min, std::int64_t fallback) const;

  /// Throws InputError for `key` at its line with `reason` (for checks done by the caller).
  [[noreturn]] void fail(const std::string& key, const std::string& reason) const;
  /// Line of a key's value (or 0 when absent).
  int line_of(const std::string& key) const;

  /// Marks every key under `prefix` used (for sub-tables parsed elsewhere).
  void mark_used(const std::string& key) const;
  /// Throws InputError ("unknown key") for the first key, in file order, that no getter asked for.
  void check_all_used() const;
  /// Same, restricted to the keys under `prefix` (e.g. "monte_carlo").
  void check_all_used(const std::string& prefix) const;
  /// Throws InputError for entry `index` of the array at `key`, at that entry's line.
  [[noreturn]] void fail_entry(const std::string& key, std::size_t index, const std::string& reason) const;
  /// The node at a dotted key, or nullptr; throws InputError when a prefix of the key is not a table.
  /// A table that holds overrides is returned as the base's table (or, when the base has none, as an
  /// empty table): good for type checks, but read its keys through the view.
  const toml::node* find(const std::string& key) const;

 private:
  struct Hit;  // a key resolved through the overlay
  Hit resolve(const std::string& key, bool strict) const;  // strict: throw when a prefix is not a table
  const ParamOverride* override_at(const std::string& key) const;
  const ParamOverride* first_override_inside(const std::string& key) const;  // strictly inside `key`
  struct Leaf;
  void collect_leaves(const toml::table* base, const std::string& prefix, std::vector<Leaf>& out) const;
  const toml::node& require(const std::string& key) const;  // marks used; "required key is missing"
  int line_for_error(const std::string& key) const;         // value line, else enclosing table line
  bool is_used(const std::string& key) const;
  const toml::table& table_;
  std::vector<ParamOverride> overrides_;
  std::string file_;
  mutable std::set<std::string> used_;
};

}  // namespace moelab
