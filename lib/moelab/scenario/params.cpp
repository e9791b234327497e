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


int column_of_node(const toml::node& n) { return static_cast<int>(n.source().begin.column); }

/// `key` lies strictly inside `prefix` ("a.b" inside "a"; every key inside "").
bool is_inside(const std::string& key, const std::string& prefix) {
  if (prefix.empty()) return !key.empty();
  return key.size() > prefix.size() && key.compare(0, prefix.size(), prefix) == 0 && key[prefix.size()] == '.';
}

/// What find() returns for a table that exists only through the overrides inside it.
const toml::table& empty_table() {
  static const toml::table t;
  return t;
}

}  // namespace

struct ParamView::Leaf {
  std::string key;
  int line;
  int column;
};

struct ParamView::Hit {
  const toml::node* node = nullptr;  // the value; for an overlay table, the base's table (or nullptr)
  bool overlay_table = false;        // a table with overrides strictly inside it
  int line = 0;                      // of the value, or of the innermost enclosing table when missing
  int column = 0;
  bool found() const { return node != nullptr || overlay_table; }
};

namespace {

/// Keys of `t` in file order: every non-table value, and every empty table (a table with content is
/// represented by its content).
template <class Leaf>
void collect_plain(const toml::table& t, const std::string& prefix, std::vector<Leaf>& out) {
  for (auto&& [k, v] : t) {
    const std::string key = join_key(prefix, k.str());
    if (const auto* sub = v.as_table(); sub && !sub->empty()) collect_plain(*sub, key, out);
    else out.push_back({key, line_of_node(v), column_of_node(v)});
  }
}

/// The leaves of value `n` at `key`, placed at (line, column).
template <class Leaf>
void add_value(const toml::node& n, const std::string& key, int line, int column, std::vector<Leaf>& out) {
  if (const auto* t = n.as_table(); t && !t->empty()) collect_plain(*t, key, out);
  else out.push_back({key, line, column});
}

}  // namespace

ParamView::ParamView(const toml::table& table, std::string file) : table_(table), file_(std::move(file)) {}

ParamView::ParamView(const toml::table& base, std::vector<ParamOverride> overrides, std::string file)
    : table_(base), overrides_(std::move(overrides)), file_(std::move(file)) {
  for (const auto& o : overrides_) {
    MOELAB_EXPECT(!o.key.empty() && o.value != nullptr, "an override needs a key and a value");
    for (const auto& other : overrides_) {
      MOELAB_EXPECT(&o == &other || (o.key != other.key && !is_inside(o.key, other.key)),
                    "overrides must not overlap");
    }
  }
}

const ParamOverride* ParamView::override_at(const std::string& key) const {
  for (const auto& o : overrides_)
    if (o.key == key) return &o;
  return nullptr;
}

const ParamOverride* ParamView::first_override_inside(const std::string& key) const {
  for (const auto& o : overrides_)
    if (is_inside(o.key, key)) return &o;
  return nullptr;
}

ParamView::Hit ParamView::resolve(const std::string& key, bool strict) const {
  Hit h{&table_, !overrides_.empty(), line_of_node(table_), column_of_node(table_)};
  std::string walked;
  for (const auto& part : split_dotted_key(key)) {
    const toml::table* t = h.node ? h.node->as_table() : nullptr;
    if (t == nullptr && !h.overlay_table) {
      if (strict) throw InputError(file_, h.line, walked, fmt::format("must be a table, got {}", describe(*h.node)));
      return Hit{nullptr, false, h.line, h.column};
    }
    walked = join_key(walked, part);
    const toml::node* child = t ? t->get(part) : nullptr;
    if (h.overlay_table) {
      if (const ParamOverride* o = override_at(walked)) {
        h = Hit{o->value, false, o->line, o->column};
        continue;
      }
      if (const ParamOverride* o = first_override_inside(walked)) {
        if (child && !child->is_table()) child = nullptr;  // shadowed by the overrides inside it
        h = child ? Hit{child, true, line_of_node(*child), column_of_node(*child)} : Hit{nullptr, true, o->line, o->column};
        continue;
      }
    }
    if (child == nullptr) return Hit{nullptr, false, h.line, h.column};
    h = Hit{child, false, line_of_node(*child), column_of_node(*child)};
  }
  return h;
}

const toml::node* ParamView::find(const std::string& key) const {
  const Hit h = resolve(key, true);
  if (!h.found()) return nullptr;
  return h.node ? h.node : &empty_table();
}

void ParamView::collect_leaves(const toml::table* base, const std::string& prefix, std::vector<Leaf>& out) const {
  if (base) {
    for (auto&& [k, v] : *base) {
      const std::string key = join_key(prefix, k.str());
      if (const ParamOverride* o = override_at(key)) add_value(*o->value, key, o->line, o->column, out);
      else if (first_override_inside(key)) collect_leaves(v.as_table(), key, out);
      else add_value(v, key, line_of_node(v), column_of_node(v), out);
    }
  }
  // Overridden keys the base lacks: each name directly inside `prefix` once.
  std::vector<std::string> seen;
  for (const auto& o : overrides_) {
    if (!is_inside(o.key, prefix)) continue;
    const std::string rest = o.key.substr(prefix.empty() ? 0 : prefix.size() + 1);
    const std::string name = rest.substr(0, rest.find('.'));
    if ((base && base->contains(name)) || std::find(seen.begin(), seen.end(), name) != seen.end()) continue;
    seen.push_back(name);
    const std::string key = join_key(prefix, name);
    if (key == o.key) add_value(*o.value, key, o.line, o.column, out);
    else collect_leaves(nullptr, key, out);
  }
}

bool ParamView::has(const std::string& key) const { return find(key) != nullptr; }

int ParamView::line_of(const std::string& key) const {
  const Hit h = resolve(key, true);
  return h.found() ? h.line : 0;
}

int ParamView::line_for_error(const std::string& key) const {
  // The value's line, or else the line of the innermost existing enclosing table.
  return resolve(key, false).line;
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
    collect_leaves(&table_, "", leaves);
  } else {
    const Hit h = resolve(prefix, true);
    if (!h.found()) return;
    if (h.overlay_table) collect_leaves(h.node ? h.node->as_table() : nullptr, prefix, leaves);
    else add_value(*h.node, prefix, h.line, h.column, leaves);
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
