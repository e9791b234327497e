#include "moelab/scenario/params.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <tuple>

#include <fmt/format.h>

#include "moelab/core/error.hpp"

namespace moelab {

std::vector<std::string> split_dotted_key(const std::string& key) {
  std::vector<std::string> parts;
  std::string::size_type start = 0;
  while (true) {
    const auto dot = key.find('.', start);
    parts.push_back(key.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts;
}

namespace {


std::string join_key(const std::string& prefix, std::string_view leaf) {
  return prefix.empty() ? std::string(leaf) : prefix + "." + std::string(leaf);
}

int line_of_node(const toml::node& n) { return static_cast<int>(n.source().begin.line); }

/// Shortest round-trip form that still reads as a float: 2.0 -> "2.0" (fmt alone gives "2").
std::string float_text(double x) {
  std::string s = fmt::format("{}", x);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // 'n' covers inf and nan
  return s;
}

/// "integer 3", "float 2.5", "string \"abc\"", "boolean true", "array", "table".
std::string describe(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::integer: return fmt::format("integer {}", n.as_integer()->get());
    case toml::node_type::floating_point: return "float " + float_text(n.as_floating_point()->get());
    case toml::node_type::string: return fmt::format("string \"{}\"", n.as_string()->get());
    case toml::node_type::boolean: return fmt::format("boolean {}", n.as_boolean()->get());
    case toml::node_type::array: return "an array";
    case toml::node_type::table: return "a table";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    default: return "nothing";
  }
}

std::string quoted_list(const std::vector<std::string>& choices) {
  std::string out;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    if (i) out += ", ";
    out += "\"" + choices[i] + "\"";
  }
  return out;
}

/// Levenshtein distance (for "did you mean" hints on unknown keys).
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0u : 1u)});
      diag = up;
    }
  }
  return row[b.size()];
}

struct Leaf {
  std::string key;
  int line;
  int column;
};

/// Keys of `t` in file order: every non-table value, and every empty table (a table with content is
/// represented by its content).
void collect_leaves(const toml::table& t, const std::string& prefix, std::vector<Leaf>& out) {
  for (auto&& [k, v] : t) {
    const std::string key = join_key(prefix, k.str());
    if (const auto* sub = v.as_table(); sub && !sub->empty()) {
      collect_leaves(*sub, key, out);
    } else {
      out.push_back({key, line_of_node(v), static_cast<int>(v.source().begin.column)});
    }
  }
}

// --- source-preserving copies -----------------------------------------------------------------
// toml++ drops source positions on copy (only moves keep them; see tomlplusplus issue #49), and the
// parser is the only writer of a position. So a node is cloned by parsing a placeholder of the same
// type at the same line and column, then assigning the value (assignment keeps the position).

toml_node_ptr parse_placeholder(const toml::source_region& where, std::string_view literal) {
  const auto line = std::max<toml::source_index>(where.begin.line, 1);
  const auto column = std::max<toml::source_index>(where.begin.column, 1);
  std::string text(line - 1, '\n');
  // "x = " is 4 characters: indent so that the value starts at the original column when possible.
  if (column > 5) text.append(column - 5, ' ');
  text += "x = ";
  text += literal;
  toml::table doc = where.path ? toml::parse(text, std::string_view(*where.path)) : toml::parse(text);
  toml::node* n = doc.get("x");
  MOELAB_EXPECT(n != nullptr, "placeholder parse failed");
  switch (n->type()) {
    case toml::node_type::table: return std::make_unique<toml::table>(std::move(*n->as_table()));
    case toml::node_type::array: return std::make_unique<toml::array>(std::move(*n->as_array()));
    case toml::node_type::string: return std::make_unique<toml::value<std::string>>(std::move(*n->as_string()));
    case toml::node_type::integer: return std::make_unique<toml::value<std::int64_t>>(std::move(*n->as_integer()));
    case toml::node_type::floating_point:
      return std::make_unique<toml::value<double>>(std::move(*n->as_floating_point()));
    case toml::node_type::boolean: return std::make_unique<toml::value<bool>>(std::move(*n->as_boolean()));
    case toml::node_type::date: return std::make_unique<toml::value<toml::date>>(std::move(*n->as_date()));
    case toml::node_type::time: return std::make_unique<toml::value<toml::time>>(std::move(*n->as_time()));
    case toml::node_type::date_time:
      return std::make_unique<toml::value<toml::date_time>>(std::move(*n->as_date_time()));
    default: break;
  }
  MOELAB_EXPECT(false, "unexpected placeholder type");
  return nullptr;
}

}  // namespace

toml_node_ptr clone_node_at(const toml::node& n, const toml::source_region& where) {
  switch (n.type()) {
    case toml::node_type::table: {
      auto out = parse_placeholder(where, "{}");
      auto& t = *out->as_table();
      t.is_inline(n.as_table()->is_inline());
      for (auto&& [k, v] : *n.as_table()) t.insert(k, std::move(*clone_node(v)));
      return out;
    }
    case toml::node_type::array: {
      auto out = parse_placeholder(where, "[]");
      auto& a = *out->as_array();
      for (auto&& v : *n.as_array()) a.push_back(std::move(*clone_node(v)));
      return out;
    }
    case toml::node_type::string: {
      auto out = parse_placeholder(where, "''");
      out->as_string()->get() = n.as_string()->get();
      return out;
    }
    case toml::node_type::integer: {
      auto out = parse_placeholder(where, "0");
      out->as_integer()->get() = n.as_integer()->get();
      out->as_integer()->flags(n.as_integer()->flags());
      return out;
    }
    case toml::node_type::floating_point: {
      auto out = parse_placeholder(where, "0.0");
      out->as_floating_point()->get() = n.as_floating_point()->get();
      return out;
    }
    case toml::node_type::boolean: {
      auto out = parse_placeholder(where, "false");
      out->as_boolean()->get() = n.as_boolean()->get();
      return out;
    }
    case toml::node_type::date: {
      auto out = parse_placeholder(where, "1979-05-27");
      out->as_date()->get() = n.as_date()->get();
      return out;
    }
    case toml::node_type::time: {
      auto out = parse_placeholder(where, "07:32:00");
      out->as_time()->get() = n.as_time()->get();
      return out;
    }
    case toml::node_type::date_time: {
      auto out = parse_placeholder(where, "1979-05-27T07:32:00Z");
      out->as_date_time()->get() = n.as_date_time()->get();
      return out;
    }
    default: break;
  }
  MOELAB_EXPECT(false, "unexpected node type");
  return nullptr;
}

toml_node_ptr clone_node(const toml::node& n) { return clone_node_at(n, n.source()); }

toml::table clone_table(const toml::table& t) {
  toml::table out;
  if (t.source().begin.line > 0) out = std::move(*clone_node(t)->as_table());
  else
    for (auto&& [k, v] : t) out.insert(k, std::move(*clone_node(v)));
  out.is_inline(t.is_inline());
  return out;
}

ParamView::ParamView(const toml::table& table, std::string file) : table_(table), file_(std::move(file)) {}

const toml::node* ParamView::find(const std::string& key) const {
  const auto parts = split_dotted_key(key);
  const toml::table* t = &table_;
  std::string walked;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const toml::node* n = t->get(parts[i]);
    if (n == nullptr) return nullptr;
    walked = join_key(walked, parts[i]);
    if (i + 1 == parts.size()) return n;
    t = n->as_table();
    if (t == nullptr) {
      throw InputError(file_, line_of_node(*n), walked, fmt::format("must be a table, got {}", describe(*n)));
    }
  }
  return nullptr;
}

bool ParamView::has(const std::string& key) const { return find(key) != nullptr; }

int ParamView::line_of(const std::string& key) const {
  const toml::node* n = find(key);
  return n ? line_of_node(*n) : 0;
}

int ParamView::line_for_error(const std::string& key) const {
  // The value's line, or else the line of the innermost existing enclosing table.
  const auto parts = split_dotted_key(key);
  const toml::node* n = &table_;
  int line = line_of_node(table_);
  for (const auto& part : parts) {
    const auto* t = n->as_table();
    if (t == nullptr) break;
    n = t->get(part);
    if (n == nullptr) break;
    line = line_of_node(*n);
  }
  return line;
}

void ParamView::fail(const std::string& key, const std::string& reason) const {
  throw InputError(file_, line_for_error(key), key, reason);
}

void ParamView::fail_entry(const std::string& key, std::size_t index, const std::string& reason) const {
  int line = line_for_error(key);
  if (const toml::node* n = find(key); n && n->is_array() && index < n->as_array()->size()) {
    line = line_of_node(*n->as_array()->get(index));
  }
  throw InputError(file_, line, key, reason);
}

const toml::node& ParamView::require(const std::string& key) const {
  used_.insert(key);
  const toml::node* n = find(key);
  if (n == nullptr) fail(key, "required key is missing");
  return *n;
}

namespace {
/// Number (integer or float) of a node, or nullopt when it is neither.
std::optional<double> as_number(const toml::node& n) {
  if (const auto* i = n.as_integer()) return static_cast<double>(i->get());
  if (const auto* f = n.as_floating_point()) return f->get();
  return std::nullopt;
}
}  // namespace

double ParamView::get_double(const std::string& key) const {
  const toml::node& n = require(key);
  const auto x = as_number(n);
  if (!x) fail(key, fmt::format("must be a number, got {}", describe(n)));
  if (!std::isfinite(*x)) fail(key, fmt::format("must be a finite number, got {}", *x));
  return *x;
}

double ParamView::get_double(const std::string& key, double fallback) const {
  used_.insert(key);
  return has(key) ? get_double(key) : fallback;
}

std::int64_t ParamView::get_int(const std::string& key) const {
  const toml::node& n = require(key);
  const auto* i = n.as_integer();
  if (i == nullptr) fail(key, fmt::format("must be an integer, got {}", describe(n)));
  return i->get();
}

std::int64_t ParamView::get_int(const std::string& key, std::int64_t fallback) const {
  used_.insert(key);
  return has(key) ? get_int(key) : fallback;
}

bool ParamView::get_bool(const std::string& key, bool fallback) const {
  used_.insert(key);
  const toml::node* n = find(key);
  if (n == nullptr) return fallback;
  const auto* b = n->as_boolean();
  if (b == nullptr) fail(key, fmt::format("must be true or false, got {}", describe(*n)));
  return b->get();
}

std::string ParamView::get_string(const std::string& key) const {
  const toml::node& n = require(key);
  const auto* s = n.as_string();
  if (s == nullptr) fail(key, fmt::format("must be a string, got {}", describe(n)));
  return s->get();
}

std::string ParamView::get_string(const std::string& key, const std::string& fallback) const {
  used_.insert(key);
  return has(key) ? get_string(key) : fallback;
}

std::string ParamView::get_choice(const std::string& key, const std::vector<std::string>& choices,
                                  const std::string& fallback) const {
  const std::string s = get_string(key, fallback);
  if (std::find(choices.begin(), choices.end(), s) == choices.end()) {
    fail(key, fmt::format("must be one of {}, got \"{}\"", quoted_list(choices), s));
  }
  return s;
}

std::vector<double> ParamView::get_double_array(const std::string& key) const {
  const toml::node& n = require(key);
  const auto* a = n.as_array();
  if (a == nullptr) fail(key, fmt::format("must be an array of numbers, got {}", describe(n)));
  std::vector<double> out;
  out.reserve(a->size());
  for (std::size_t i = 0; i < a->size(); ++i) {
    const auto x = as_number(*a->get(i));
    if (!x) fail_entry(key, i, fmt::format("entry [{}] must be a number, got {}", i, describe(*a->get(i))));
    if (!std::isfinite(*x)) fail_entry(key, i, fmt::format("entry [{}] must be a finite number, got {}", i, *x));
    out.push_back(*x);
  }
  return out;
}

std::vector<std::int64_t> ParamView::get_int_array(const std::string& key) const {
  const toml::node& n = require(key);
  const auto* a = n.as_array();
  if (a == nullptr) fail(key, fmt::format("must be an array of integers, got {}", describe(n)));
  std::vector<std::int64_t> out;
  out.reserve(a->size());
  for (std::size_t i = 0; i < a->size(); ++i) {
    const auto* v = a->get(i)->as_integer();
    if (v == nullptr) fail_entry(key, i, fmt::format("entry [{}] must be an integer, got {}", i, describe(*a->get(i))));
    out.push_back(v->get());
  }
  return out;
}

std::vector<std::vector<double>> ParamView::get_double_matrix(const std::string& key) const {
  const toml::node& n = require(key);
  const auto* a = n.as_array();
  if (a == nullptr || a->empty()) {
    fail(key, fmt::format("must be a non-empty array of rows (arrays of numbers), got {}", describe(n)));
  }
  std::vector<std::vector<double>> out;
  for (std::size_t r = 0; r < a->size(); ++r) {
    const auto* row = a->get(r)->as_array();
    if (row == nullptr) fail_entry(key, r, fmt::format("row [{}] must be an array of numbers, got {}", r, describe(*a->get(r))));
    std::vector<double> values;
    for (std::size_t c = 0; c < row->size(); ++c) {
      const auto x = as_number(*row->get(c));
      if (!x || !std::isfinite(*x)) {
        throw InputError(file_, line_of_node(*row->get(c)), key,
                         fmt::format("entry [{}][{}] must be a finite number, got {}", r, c, describe(*row->get(c))));
      }
      values.push_back(*x);
    }
    if (r > 0 && values.size() != out[0].size()) {
      fail_entry(key, r, fmt::format("row [{}] has {} entries, but row [0] has {}", r, values.size(), out[0].size()));
    }
    out.push_back(std::move(values));
  }
  return out;
}

double ParamView::get_positive(const std::string& key) const {
  const double x = get_double(key);
  if (!(x > 0.0)) fail(key, fmt::format("must be > 0, got {}", x));
  return x;
}

double ParamView::get_positive(const std::string& key, double fallback) const {
  used_.insert(key);
  return has(key) ? get_positive(key) : fallback;
}

double ParamView::get_nonnegative(const std::string& key, double fallback) const {
  const double x = get_double(key, fallback);
  if (!(x >= 0.0)) fail(key, fmt::format("must be >= 0, got {}", x));
  return x;
}

std::int64_t ParamView::get_int_at_least(const std::string& key, std::int64_t min) const {
  const std::int64_t x = get_int(key);
  if (x < min) fail(key, fmt::format("must be >= {}, got {}", min, x));
  return x;
}

std::int64_t ParamView::get_int_at_least(const std::string& key, std::int64_t min, std::int64_t fallback) const {
  used_.insert(key);
  return has(key) ? get_int_at_least(key, min) : fallback;
}

void ParamView::mark_used(const std::string& key) const { used_.insert(key); }

bool ParamView::is_used(const std::string& key) const {
  // A key is used when it, or any table enclosing it, was asked for.
  std::string k = key;
  while (true) {
    if (used_.count(k)) return true;
    const auto dot = k.rfind('.');
    if (dot == std::string::npos) return false;
    k.resize(dot);
  }
}

void ParamView::check_all_used() const { check_all_used(""); }

void ParamView::check_all_used(const std::string& prefix) const {
  std::vector<Leaf> leaves;
  if (prefix.empty()) {
    collect_leaves(table_, "", leaves);
  } else {
    const toml::node* n = find(prefix);
    if (n == nullptr) return;
    if (const auto* t = n->as_table(); t && !t->empty()) collect_leaves(*t, prefix, leaves);
    else leaves.push_back({prefix, line_of_node(*n), static_cast<int>(n->source().begin.column)});
  }
  std::stable_sort(leaves.begin(), leaves.end(),
                   [](const Leaf& a, const Leaf& b) { return std::tie(a.line, a.column) < std::tie(b.line, b.column); });
  for (const Leaf& leaf : leaves) {
    if (is_used(leaf.key)) continue;
    // Suggest the closest key that was asked for in the same table ("sigma" -> "sigma2").
    const auto dot = leaf.key.rfind('.');
    const std::string parent = dot == std::string::npos ? "" : leaf.key.substr(0, dot);
    const std::string name = dot == std::string::npos ? leaf.key : leaf.key.substr(dot + 1);
    std::string best;
    std::size_t best_distance = 3;  // suggest only close misspellings (distance <= 2)
    for (const auto& u : used_) {
      const auto udot = u.rfind('.');
      const std::string uparent = udot == std::string::npos ? "" : u.substr(0, udot);
      if (uparent != parent) continue;
      const std::string uname = udot == std::string::npos ? u : u.substr(udot + 1);
      const std::size_t dist = edit_distance(name, uname);
      if (dist < best_distance) {
        best_distance = dist;
        best = u;
      }
    }
    std::string reason = "unknown key";
    if (!best.empty()) reason += fmt::format(" (did you mean '{}'?)", best);
    throw InputError(file_, leaf.line, leaf.key, reason);
  }
}

}  // namespace moelab
