#include "moelab/scenario/scenario.hpp"
#include "moelab/scenario/input_file.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>
#include <type_traits>

#include <fmt/format.h>

#include "moelab/core/error.hpp"
#include "moelab/core/memory.hpp"
#include "moelab/core/parallel.hpp"

namespace moelab {

namespace {

// Top-level keys the scenario layer owns; everything else belongs to the study (Scenario::base).
const std::vector<std::string> kReservedKeys = {"study", "title", "monte_carlo", "output", "sweep"};

// A sweep with more points than this is almost certainly a typo (e.g. steps = 1e6 on three axes).
constexpr double kMaxSweepPoints = 1e7;

// The deepest key a scenario may have (parts of a dotted key or header; the deepest shipped one has 3).
constexpr int kMaxKeyDepth = 64;


/// The key as it would be written inside [sweep]: sweep."params.n".
std::string sweep_key_display(const std::string& key) {
  return key.find('.') == std::string::npos ? "sweep." + key : "sweep.\"" + key + "\"";
}

std::string format_coordinate(const toml::node& n) {
  if (const auto* i = n.as_integer()) return fmt::format("{}", i->get());
  if (const auto* f = n.as_floating_point()) return fmt::format("{}", f->get());
  if (const auto* s = n.as_string()) return s->get();
  if (const auto* b = n.as_boolean()) return b->get() ? "true" : "false";
  std::ostringstream os;
  os << toml::toml_formatter{n, toml::format_flags::none};
  return os.str();
}

struct RawAxis {
  std::string key;
  toml::node* node;
  int line;
  int column;
};

/// Flattens [sweep]: quoted dotted keys ("params.n" = ...) and nested standard tables
/// ([sweep.params] n = ..., or params.n = ... unquoted) both give the axis "params.n". An inline
/// table is an axis specification {from, to, steps, ...}, never a nesting level.
void collect_axes(toml::table& t, const std::string& prefix, std::vector<RawAxis>& out) {
  for (auto&& [k, v] : t) {
    const std::string key = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    if (auto* sub = v.as_table(); sub && !sub->is_inline()) {
      collect_axes(*sub, key, out);
    } else {
      out.push_back({key, &v, static_cast<int>(v.source().begin.line), static_cast<int>(v.source().begin.column)});
    }
  }
}

/// Moves a parsed node into an owned one (a move keeps its source position; a toml++ copy drops it).
toml_node_ptr take_node(toml::node&& n) {
  return std::move(n).visit(
      [](auto&& x) -> toml_node_ptr { return std::make_unique<std::remove_cvref_t<decltype(x)>>(std::move(x)); });
}

/// Values of a generated axis {from, to, steps, spacing, integer}. They have no source position of
/// their own: the axis's line stands for them.
std::vector<toml_node_ptr> generate_axis(const toml::table& spec, const std::string& file, const std::string& display) {
  ParamView v(spec, file);
  try {
    // Unknown keys first: "step = 3" should read as a typo of steps, not as "steps is missing".
    for (const char* known : {"from", "to", "steps", "spacing", "integer"}) v.mark_used(known);
    v.check_all_used();
    const double from = v.get_double("from");
    const double to = v.get_double("to");
    const auto steps = v.get_int_at_least("steps", 2);
    const std::string spacing = v.get_choice("spacing", {"linear", "log"}, "linear");
    const bool integer = v.get_bool("integer", false);
    if (static_cast<double>(steps) > kMaxSweepPoints) v.fail("steps", fmt::format("must be <= {:g}, got {}", kMaxSweepPoints, steps));
    if (spacing == "log") {
      if (!(from > 0)) v.fail("from", fmt::format("must be > 0 with spacing = \"log\", got {}", from));
      if (!(to > 0)) v.fail("to", fmt::format("must be > 0 with spacing = \"log\", got {}", to));
    }
    std::vector<double> xs(static_cast<std::size_t>(steps));
    for (std::int64_t i = 0; i < steps; ++i) {
      const double t = static_cast<double>(i) / static_cast<double>(steps - 1);
      double x = spacing == "log" ? std::exp(std::log(from) + t * (std::log(to) - std::log(from)))
                                  : from + t * (to - from);
      if (i == 0) x = from;  // endpoints exactly as written, free of rounding in exp/log
      if (i == steps - 1) x = to;
      xs[static_cast<std::size_t>(i)] = x;
    }
    std::vector<toml_node_ptr> out;
    if (integer) {
      if (!(std::fabs(from) < 9.2e18)) v.fail("from", fmt::format("is outside the 64-bit integer range: {}", from));
      if (!(std::fabs(to) < 9.2e18)) v.fail("to", fmt::format("is outside the 64-bit integer range: {}", to));
      std::vector<std::int64_t> ns;
      // The values are monotone in i (linear or log spacing, exact endpoints), so rounding can repeat a
      // value only next to itself: drop consecutive repeats (linear time; a 1e7-step axis once took
      // quadratic time here).
      for (const double x : xs) {
        const std::int64_t n = std::llround(x);
        if (ns.empty() || ns.back() != n) ns.push_back(n);
      }
      for (const std::int64_t n : ns) out.push_back(std::make_unique<toml::value<std::int64_t>>(n));
    } else {
      for (const double x : xs) out.push_back(std::make_unique<toml::value<double>>(x));
    }
    return out;
  } catch (const InputError& e) {
    // Name the key as the user wrote it: sweep."params.n".steps.
    std::string reason = e.reason();
    const std::string hint = "did you mean '";
    if (const auto at = reason.find(hint); at != std::string::npos) reason.insert(at + hint.size(), display + ".");
    throw InputError(e.file(), e.line(), display + (e.key().empty() ? "" : "." + e.key()), reason);
  }
}

}  // namespace

std::vector<SweepPoint> Scenario::points() const {
  // Each axis value becomes one override, built once; a point picks one per axis.
  std::size_t total = 1;
  std::vector<std::vector<ParamOverride>> overrides(axes.size());
  std::vector<std::vector<std::string>> labels(axes.size());
  for (std::size_t a = 0; a < axes.size(); ++a) {
    total *= axes[a].values.size();
    for (const auto& value : axes[a].values) {
      const auto& at = value->source().begin;
      const bool placed = at.line > 0;  // generated values have no position: the axis's stands in
      overrides[a].push_back({axes[a].key, value.get(), placed ? static_cast<int>(at.line) : axes[a].line,
                              placed ? static_cast<int>(at.column) : axes[a].column});
      labels[a].push_back(format_coordinate(*value));
    }
  }
  std::vector<SweepPoint> out(total);
  std::vector<std::size_t> at(axes.size());
  for (std::size_t idx = 0; idx < total; ++idx) {
    // Mixed-radix index, last axis fastest.
    std::size_t rem = idx;
    for (std::size_t a = axes.size(); a-- > 0;) {
      at[a] = rem % axes[a].values.size();
      rem /= axes[a].values.size();
    }
    SweepPoint& p = out[idx];
    p.base = &base;
    p.coordinates.reserve(axes.size());
    p.overrides.reserve(axes.size());
    for (std::size_t a = 0; a < axes.size(); ++a) {
      p.coordinates.emplace_back(axes[a].key, labels[a][at[a]]);
      p.overrides.push_back(overrides[a][at[a]]);
    }
  }
  return out;
}

namespace {

/// Refuses keys nested deeper than kMaxKeyDepth before toml++ sees the text: a header with ~50,000
/// dotted parts ([a.a.a...]) makes as many nested tables, and the parser and the tables' destructors
/// recurse once per level (a stack overflow). Counts the dots of every key outside strings and
/// comments (a dotted key's parts; a value such as 1.5 or a time has at most two).
void check_key_depth(const std::string& text, const std::string& path) {
  int line = 1, dots = 0;
  std::size_t i = 0;
  const std::size_t n = text.size();
  const auto starts = [&](const char* q) { return text.compare(i, std::char_traits<char>::length(q), q) == 0; };
  while (i < n) {
    const char c = text[i];
    if (c == '\n') {
      ++line, dots = 0, ++i;
    } else if (c == '#') {
      while (i < n && text[i] != '\n') ++i;
    } else if (starts("\"\"\"") || starts("'''")) {
      const std::string close = text.substr(i, 3);
      i += 3;
      while (i < n && !starts(close.c_str())) {
        if (close[0] == '"' && text[i] == '\\') ++i;
        else if (text[i] == '\n') ++line;
        ++i;
      }
      i += 3;
    } else if (c == '"' || c == '\'') {
      for (++i; i < n && text[i] != c && text[i] != '\n'; ++i)
        if (c == '"' && text[i] == '\\') ++i;
      if (i < n && text[i] == c) ++i;
    } else {
      if (c == '.' && ++dots >= kMaxKeyDepth)
        throw InputError(path, line, "", fmt::format("a key nested deeper than {} levels (a dotted key or table header "
                                                     "with {} or more parts); scenarios need a few", kMaxKeyDepth, kMaxKeyDepth + 1));
      if (c == '=' || c == '[' || c == ']' || c == '{' || c == '}' || c == ',') dots = 0;
      ++i;
    }
  }
}

}  // namespace

Scenario parse_scenario(const std::string& text, const std::string& path) {
  check_key_depth(text, path);
  toml::table doc;
  try {
    doc = toml::parse(text, std::string_view(path));
  } catch (const toml::parse_error& e) {
    throw InputError(path, static_cast<int>(e.source().begin.line), "", std::string(e.description()));
  }

  ParamView v(doc, path);
  Scenario s;
  s.path = path;
  s.name = std::filesystem::path(path).stem().string();
  if (s.name.empty()) s.name = "scenario";

  s.study = v.get_string("study");
  if (s.study.empty()) v.fail("study", "must name a study (see `moelab list`), got \"\"");
  s.title = v.get_string("title", "");

  for (const char* table : {"monte_carlo", "output"}) {
    if (const toml::node* n = v.find(table); n && !n->is_table()) v.fail(table, "must be a table");
  }
  s.budget.trials = v.get_int_at_least("monte_carlo.trials", 1, s.budget.trials);
  s.budget.seed = static_cast<std::uint64_t>(v.get_int_at_least("monte_carlo.seed", 0, 1));
  const std::int64_t threads = v.get_int_at_least("monte_carlo.threads", 0, 0);
  if (threads > max_threads())
    v.fail("monte_carlo.threads", fmt::format("must be at most {} (64 per hardware thread, within the process limits), got {}",
                                              max_threads(), threads));
  s.budget.threads = static_cast<int>(threads);
  if (const toml::node* mm = v.find("monte_carlo.max_memory")) {
    double bytes = 0;
    const auto* text = mm->as_string();
    if (const auto* i = mm->as_integer()) bytes = static_cast<double>(i->get());
    v.mark_used("monte_carlo.max_memory");
    if ((text && !parse_memory_size(text->get(), bytes)) || (!text && !mm->as_integer()) || !(bytes > 0))
      v.fail("monte_carlo.max_memory", "must be a size such as \"8G\", \"512M\" or a number of bytes > 0");
    s.budget.max_memory = bytes;
  }
  const auto backend = v.get_choice("monte_carlo.backend", {"cpu", "cuda", "auto"}, "auto");
  s.budget.backend = *parse_backend(backend);
  v.check_all_used("monte_carlo");

  s.output_csv = v.get_string("output.csv", "results/" + s.name + ".csv");
  if (s.output_csv.empty()) v.fail("output.csv", "must be a file path, got \"\"");
  const std::string default_plot = "plots/" + s.name + ".gp";
  std::error_code ec;
  s.output_plot = v.get_string("output.plot", std::filesystem::exists(default_plot, ec) ? default_plot : "");
  v.check_all_used("output");

  // Sweep axes, in file order.
  v.mark_used("sweep");
  std::vector<RawAxis> raw;
  if (const toml::node* n = v.find("sweep")) {
    if (!n->is_table()) v.fail("sweep", "must be a table of axes (\"params.n\" = [...] or {from, to, steps})");
    collect_axes(*doc.get("sweep")->as_table(), "", raw);  // the same table, writable: values move out
  }
  std::stable_sort(raw.begin(), raw.end(),
                   [](const RawAxis& a, const RawAxis& b) { return std::tie(a.line, a.column) < std::tie(b.line, b.column); });
  double total_points = 1;
  for (const RawAxis& r : raw) {
    const std::string display = sweep_key_display(r.key);
    const auto parts = split_dotted_key(r.key);
    for (const auto& part : parts) {
      if (part.empty()) throw InputError(path, r.line, display, "is not a valid dotted key (empty component)");
    }
    if (std::find(kReservedKeys.begin(), kReservedKeys.end(), parts[0]) != kReservedKeys.end()) {
      throw InputError(path, r.line, display,
                       fmt::format("cannot sweep '{}': only study parameters (outside study, title, monte_carlo, "
                                   "output, sweep) can be swept",
                                   r.key));
    }
    for (const auto& other : s.axes) {
      if (other.key == r.key) throw InputError(path, r.line, display, "is swept twice");
      // A point lays one value per axis over the base, so no axis may set a key inside another's.
      const auto inside = [](const std::string& k, const std::string& outer) {
        return k.size() > outer.size() && k.compare(0, outer.size(), outer) == 0 && k[outer.size()] == '.';
      };
      if (inside(r.key, other.key) || inside(other.key, r.key)) {
        throw InputError(path, r.line, display,
                         fmt::format("overlaps the axis '{}' (line {}): sweep a key or a table inside it, not both",
                                     other.key, other.line));
      }
    }
    // Every prefix that exists in the document must be a table, so the value can be set.
    const toml::node* cur = &doc;
    std::string walked;
    for (std::size_t i = 0; i + 1 < parts.size() && cur; ++i) {
      cur = cur->as_table()->get(parts[i]);
      walked += (walked.empty() ? "" : ".") + parts[i];
      if (cur && !cur->is_table()) {
        throw InputError(path, r.line, display,
                         fmt::format("cannot set '{}': '{}' (line {}) is not a table", r.key, walked,
                                     cur->source().begin.line));
      }
    }

    SweepAxis axis;
    axis.key = r.key;
    axis.line = r.line;
    axis.column = r.column;
    if (auto* arr = r.node->as_array()) {
      if (arr->empty()) throw InputError(path, r.line, display, "must list at least one value, got []");
      for (auto&& value : *arr) axis.values.push_back(take_node(std::move(value)));
    } else if (const auto* spec = r.node->as_table()) {
      axis.values = generate_axis(*spec, path, display);
    } else {
      throw InputError(path, r.line, display,
                       fmt::format("must be an array of values or a table {{from, to, steps}}, got {}",
                                   format_coordinate(*r.node)));
    }
    total_points *= static_cast<double>(axis.values.size());
    if (total_points > kMaxSweepPoints) {
      throw InputError(path, r.line, display, fmt::format("the sweep grid exceeds {:g} points", kMaxSweepPoints));
    }
    s.axes.push_back(std::move(axis));
  }

  for (const auto& key : kReservedKeys) doc.erase(key);
  s.base = std::move(doc);
  return s;
}

std::string read_input_file(const std::string& path, std::uint64_t max_bytes, const std::string& what,
                            const std::string& key) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw InputError(path, 0, key, "cannot read file");
  if (fs::is_directory(st)) throw InputError(path, 0, key, fmt::format("is a directory, not {}", what));
  if (!fs::is_regular_file(st))
    throw InputError(path, 0, key,
                     fmt::format("is a device, FIFO or socket, not {} (only regular files are read)", what));
  const auto size = fs::file_size(path, ec);
  const auto too_big = [&](const std::string& size_text) {
    return InputError(path, 0, key,
                      fmt::format("is {}, larger than the {} bytes allowed for {}", size_text, max_bytes, what));
  };
  if (!ec && size > max_bytes) throw too_big(fmt::format("{} bytes", size));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, key, fmt::format("cannot read {} (permission denied or unreadable)", what));
  std::string text;
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes) throw too_big(fmt::format("more than {} bytes", max_bytes));
  }
  if (in.bad()) throw InputError(path, 0, key, fmt::format("read error in {}", what));
  return text;
}

Scenario load_scenario(const std::string& path) {
  return parse_scenario(read_input_file(path, kMaxScenarioBytes, "a scenario file"), path);
}

}  // namespace moelab
