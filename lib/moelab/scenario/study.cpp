#include "moelab/scenario/study.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "moelab/core/error.hpp"

namespace moelab {

const char* to_string(ParamType t) {
  switch (t) {
    case ParamType::integer: return "integer";
    case ParamType::real: return "real";
    case ParamType::boolean: return "boolean";
    case ParamType::choice: return "choice";
    case ParamType::text: return "string";
    case ParamType::real_list: return "list of reals";
    case ParamType::integer_list: return "list of integers";
    case ParamType::real_matrix: return "matrix (array of rows)";
    case ParamType::table: return "table";
  }
  return "?";
}

namespace {

constexpr double kIntMax = 2147483647.0;  // default bound of declared integers (they fit an int)

ParamDecl make(std::string key, ParamType type, std::string doc) {
  ParamDecl d;
  d.key = std::move(key);
  d.type = type;
  d.doc = std::move(doc);
  if (type == ParamType::integer) d.max = kIntMax;
  return d;
}

std::string bound_text(double x) {
  if (std::fabs(x) < 9.0e15 && x == std::floor(x)) return fmt::format("{}", static_cast<std::int64_t>(x));
  return fmt::format("{}", x);
}

}  // namespace

ParamDecl integer(std::string key, std::string doc) { return make(std::move(key), ParamType::integer, std::move(doc)); }
ParamDecl real(std::string key, std::string doc) { return make(std::move(key), ParamType::real, std::move(doc)); }
ParamDecl boolean(std::string key, std::string doc) { return make(std::move(key), ParamType::boolean, std::move(doc)); }
ParamDecl choice(std::string key, std::vector<std::string> choices, std::string doc) {
  auto d = make(std::move(key), ParamType::choice, std::move(doc));
  d.choices = std::move(choices);
  return d;
}
ParamDecl text(std::string key, std::string doc) { return make(std::move(key), ParamType::text, std::move(doc)); }
ParamDecl real_list(std::string key, std::string doc) { return make(std::move(key), ParamType::real_list, std::move(doc)); }
ParamDecl integer_list(std::string key, std::string doc) {
  return make(std::move(key), ParamType::integer_list, std::move(doc));
}
ParamDecl real_matrix(std::string key, std::string doc) { return make(std::move(key), ParamType::real_matrix, std::move(doc)); }
ParamDecl table(std::string key, std::string doc) { return make(std::move(key), ParamType::table, std::move(doc)); }

std::string ParamDecl::domain_text() const {
  switch (type) {
    case ParamType::integer:
    case ParamType::real: {
      const char* what = type == ParamType::integer ? "integer" : "real";
      const bool lo = std::isfinite(min), hi = std::isfinite(max);
      if (lo && hi)
        return fmt::format("{} in {}{}, {}{}", what, min_open ? "(" : "[", bound_text(min), bound_text(max), max_open ? ")" : "]");
      if (lo) return fmt::format("{} {} {}", what, min_open ? ">" : ">=", bound_text(min));
      if (hi) return fmt::format("{} {} {}", what, max_open ? "<" : "<=", bound_text(max));
      return fmt::format("finite {}", what);
    }
    case ParamType::choice: return fmt::format("one of {}", fmt::join(choices, ", "));
    default: return to_string(type);
  }
}

std::string ParamDecl::default_text() const {
  if (!fallback) return may_be_absent ? "(absent)" : "(required)";
  if (type == ParamType::boolean) return std::get<std::int64_t>(*fallback) ? "true" : "false";
  return format_cell(*fallback);
}

// ---- PointParams ----

PointParams::PointParams(const ParamView& view, const std::vector<ParamDecl>& decls, Backend backend)
    : view_(view), decls_(decls), backend_(backend) {
  // Validate every declared key now, so that a bad value is reported before anything runs, even
  // when the study reads the key only in some branches.
  for (const auto& d : decls_) {
    if (!view_.has(d.key)) {
      view_.mark_used(d.key);
      if (!d.fallback && !d.may_be_absent) {
        if (d.type == ParamType::table) view_.fail(d.key, "required table is missing");
        (void)view_.get_double(d.key);  // throws "required key is missing" with the table's line
      }
      continue;
    }
    switch (d.type) {
      case ParamType::integer: {
        const std::int64_t x = view_.get_int(d.key);
        if (!d.admits(static_cast<double>(x))) view_.fail(d.key, fmt::format("must be an {}, got {}", d.domain_text(), x));
        break;
      }
      case ParamType::real: {
        const double x = view_.get_double(d.key);
        if (!std::isfinite(x) || !d.admits(x)) view_.fail(d.key, fmt::format("must be a {}, got {}", d.domain_text(), x));
        break;
      }
      case ParamType::boolean: (void)view_.get_bool(d.key, false); break;
      case ParamType::choice: (void)view_.get_choice(d.key, d.choices, d.choices.front()); break;
      case ParamType::text: (void)view_.get_string(d.key); break;
      case ParamType::real_list: {
        for (double x : view_.get_double_array(d.key))
          if (!std::isfinite(x) || !d.admits(x))
            view_.fail(d.key, fmt::format("every entry must be a {}, got {}", d.domain_text(), x));
        break;
      }
      case ParamType::integer_list: {
        for (std::int64_t x : view_.get_int_array(d.key)) {
          if (!d.admits(static_cast<double>(x)))
            view_.fail(d.key, fmt::format("every entry must be an {}, got {}", d.domain_text(), x));
        }
        break;
      }
      case ParamType::real_matrix: (void)view_.get_double_matrix(d.key); break;
      case ParamType::table:
        if (const toml::node* n = view_.find(d.key); n && !n->is_table()) view_.fail(d.key, "must be a table");
        break;
    }
  }
}

const ParamDecl& PointParams::decl(const std::string& key, ParamType want) const {
  for (const auto& d : decls_)
    if (d.key == key) {
      const bool ok = d.type == want || (want == ParamType::text && d.type == ParamType::choice);
      MOELAB_EXPECT(ok, "parameter read with another type than declared");
      return d;
    }
  MOELAB_EXPECT(false, "parameter read but not declared by the study");
  return decls_.front();  // unreachable
}

bool PointParams::has(const std::string& key) const {
  for (const auto& d : decls_)
    if (d.key == key) return view_.has(key);
  MOELAB_EXPECT(false, "parameter asked for but not declared by the study");
  return false;
}

std::int64_t PointParams::integer(const std::string& key) const {
  const auto& d = decl(key, ParamType::integer);
  if (!view_.has(key)) {
    MOELAB_EXPECT(d.fallback.has_value(), "absent optional integer read without has()");
    return std::get<std::int64_t>(*d.fallback);
  }
  return view_.get_int(key);
}

int PointParams::small(const std::string& key) const {
  const auto& d = decl(key, ParamType::integer);
  MOELAB_EXPECT(d.max <= kIntMax && d.min >= -kIntMax, "small() needs a declared domain inside int");
  return static_cast<int>(integer(key));
}

double PointParams::real(const std::string& key) const {
  const auto& d = decl(key, ParamType::real);
  if (!view_.has(key)) {
    MOELAB_EXPECT(d.fallback.has_value(), "absent optional real read without has()");
    if (const auto* i = std::get_if<std::int64_t>(&*d.fallback)) return static_cast<double>(*i);
    return std::get<double>(*d.fallback);
  }
  return view_.get_double(key);
}

bool PointParams::boolean(const std::string& key) const {
  const auto& d = decl(key, ParamType::boolean);
  if (!view_.has(key)) {
    MOELAB_EXPECT(d.fallback.has_value(), "absent optional boolean read without has()");
    return std::get<std::int64_t>(*d.fallback) != 0;
  }
  return view_.get_bool(key, false);
}

std::string PointParams::text(const std::string& key) const {
  const auto& d = decl(key, ParamType::text);
  if (!view_.has(key)) {
    MOELAB_EXPECT(d.fallback.has_value(), "absent optional string read without has()");
    return std::get<std::string>(*d.fallback);
  }
  return view_.get_string(key);
}

std::vector<double> PointParams::real_list(const std::string& key) const {
  (void)decl(key, ParamType::real_list);
  return view_.has(key) ? view_.get_double_array(key) : std::vector<double>{};
}

std::vector<std::int64_t> PointParams::integer_list(const std::string& key) const {
  (void)decl(key, ParamType::integer_list);
  return view_.has(key) ? view_.get_int_array(key) : std::vector<std::int64_t>{};
}

std::vector<std::vector<double>> PointParams::real_matrix(const std::string& key) const {
  (void)decl(key, ParamType::real_matrix);
  return view_.has(key) ? view_.get_double_matrix(key) : std::vector<std::vector<double>>{};
}

// ---- rows ----

RowSink::RowSink(const std::vector<ColumnDecl>& columns) : columns_(columns) {
  for (std::size_t i = 0; i < columns_.size(); ++i) index_[columns_[i].name] = i;
}

std::size_t RowSink::column(const std::string& name) const {
  const auto it = index_.find(name);
  MOELAB_EXPECT(it != index_.end(), "row cell set for a column the study did not declare");
  return it->second;
}

void RowSink::check_complete(std::size_t r) const {
  for (std::size_t c = 0; c < columns_.size(); ++c)
    MOELAB_EXPECT(set_[r][c], "a row left a declared column unset");
}

RowSink::Row RowSink::row() {
  if (!rows_.empty()) check_complete(rows_.size() - 1);
  rows_.emplace_back(columns_.size(), CsvCell{0.0});
  set_.emplace_back(columns_.size(), false);
  return Row(*this, rows_.size() - 1);
}

RowSink::Row& RowSink::Row::set(const std::string& column, double v) {
  const auto c = sink_->column(column);
  sink_->rows_[index_][c] = v, sink_->set_[index_][c] = true;
  return *this;
}
RowSink::Row& RowSink::Row::set(const std::string& column, std::int64_t v) {
  const auto c = sink_->column(column);
  sink_->rows_[index_][c] = v, sink_->set_[index_][c] = true;
  return *this;
}
RowSink::Row& RowSink::Row::set(const std::string& column, std::string v) {
  const auto c = sink_->column(column);
  sink_->rows_[index_][c] = std::move(v), sink_->set_[index_][c] = true;
  return *this;
}

std::vector<CsvRow> RowSink::take() {
  if (!rows_.empty()) check_complete(rows_.size() - 1);
  set_.clear();
  return std::move(rows_);
}

std::size_t TableView::column(const std::string& name) const {
  for (std::size_t i = 0; i < t_.columns.size(); ++i)
    if (t_.columns[i] == name) return i;
  MOELAB_EXPECT(false, "table read by a column name it does not have");
  return 0;
}

double TableView::real(std::size_t row, const std::string& c) const {
  const CsvCell& cell = t_.rows.at(row).at(column(c));
  if (const auto* i = std::get_if<std::int64_t>(&cell)) return static_cast<double>(*i);
  const auto* d = std::get_if<double>(&cell);
  MOELAB_EXPECT(d != nullptr, "real read from a text column");
  return *d;
}

std::int64_t TableView::integer(std::size_t row, const std::string& c) const {
  const auto* i = std::get_if<std::int64_t>(&t_.rows.at(row).at(column(c)));
  MOELAB_EXPECT(i != nullptr, "integer read from a non-integer column");
  return *i;
}

const std::string& TableView::text(std::size_t row, const std::string& c) const {
  const auto* s = std::get_if<std::string>(&t_.rows.at(row).at(column(c)));
  MOELAB_EXPECT(s != nullptr, "text read from a non-text column");
  return *s;
}

std::vector<std::string> StudyDef::column_names() const {
  std::vector<std::string> out;
  for (const auto& c : columns) out.push_back(c.name);
  return out;
}

std::string describe_study(const StudyDef& s) {
  std::string out = fmt::format("{}\n  {}\n", s.name, s.summary);
  if (!s.figure.empty()) out += fmt::format("  reproduces: {}\n", s.figure);
  out += s.trial_unit.empty() ? "  trials: none (deterministic)\n"
                              : fmt::format("  trials: {} per point, independent ([monte_carlo] trials or --trials sets how many)\n",
                                            s.trial_unit);
  out += fmt::format("  cuda: {}\n\nparameters:\n", to_string(s.cuda));
  std::size_t w = 3;
  for (const auto& p : s.params) w = std::max(w, p.key.size());
  for (const auto& p : s.params) {
    out += fmt::format("  {:<{}}  {}; default {}{}\n", p.key, w, p.domain_text(), p.default_text(),
                       p.unit_text.empty() ? "" : fmt::format("; unit: {}", p.unit_text));
    out += fmt::format("  {:<{}}  {}\n", "", w, p.doc);
  }
  out += "\ncolumns:\n";
  w = 3;
  for (const auto& c : s.columns) w = std::max(w, c.name.size());
  for (const auto& c : s.columns) out += fmt::format("  {:<{}}  {}\n", c.name, w, c.doc);
  return out;
}

}  // namespace moelab
