#include "options.hpp"

#include "commands.hpp"

#include <charconv>
#include <filesystem>
#include <cmath>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "moelab/core/csv.hpp"
#include "moelab/core/error.hpp"
#include "moelab/core/distributed.hpp"
#include "moelab/core/parallel.hpp"

namespace moelab::cli {

namespace {

/// The value as typed, made printable and cut to 40 characters (a 300-digit number stays readable).
std::string shown(const std::string& text) {
  const std::string p = printable(text);
  return p.size() <= 40 ? "'" + p + "'" : "'" + p.substr(0, 37) + "...' (" + std::to_string(p.size()) + " characters)";
}

/// Strict: the whole string is one finite-or-not double (from_chars, no leading '+' or spaces).
bool parse_double(const std::string& text, double& x) {
  const char* first = text.data() + (!text.empty() && text[0] == '+' ? 1 : 0);
  const char* last = text.data() + text.size();
  if (first == last) return false;
  const auto [ptr, ec] = std::from_chars(first, last, x);
  if (ec == std::errc::result_out_of_range) {
    x = (*first == '-') ? -HUGE_VAL : HUGE_VAL;  // "1e400": out of range, report as such
    return ptr == last;
  }
  return ec == std::errc() && ptr == last;
}

/// 1000000000000000 -> "1e15" (bounds stay short); other values in digits.
std::string bound_text(std::int64_t v) {
  int k = 0;
  std::int64_t x = v;
  while (x >= 10 && x % 10 == 0) x /= 10, ++k;
  return x == 1 && k >= 6 ? fmt::format("1e{}", k) : std::to_string(v);
}

std::string int_range_text(std::int64_t lo, std::int64_t hi) {
  if (hi == std::numeric_limits<std::int64_t>::max()) return fmt::format("an integer >= {}", bound_text(lo));
  return fmt::format("an integer in [{}, {}]", bound_text(lo), bound_text(hi));
}

}  // namespace

std::string check_integer_text(const std::string& text, std::int64_t lo, std::int64_t hi, std::int64_t* out) {
  const std::string want = int_range_text(lo, hi);
  std::int64_t v = 0;
  const char* first = text.data() + (!text.empty() && text[0] == '+' ? 1 : 0);
  const char* last = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(first, last, v);
  if (first == last) return fmt::format("must be {}, got {}", want, shown(text));
  if (ptr == last && ec == std::errc::result_out_of_range)
    return fmt::format("must be {}, got {} (outside the 64-bit integer range)", want, shown(text));
  if (ptr != last || ec != std::errc()) {
    // Exact integers written like reals ("1e6", "2.0") up to 2^53 are accepted.
    double x = 0;
    if (!parse_double(text, x) || !std::isfinite(x) || x != std::floor(x))
      return fmt::format("must be {}, got {}", want, shown(text));
    if (x < static_cast<double>(lo) || x > static_cast<double>(hi)) return fmt::format("must be {}, got {}", want, shown(text));
    if (std::fabs(x) > 9007199254740992.0)
      return fmt::format("must be {}, got {} (write integers above 2^53 in digits)", want, shown(text));
    v = static_cast<std::int64_t>(x);
  }
  if (v < lo || v > hi) return fmt::format("must be {}, got {}", want, shown(text));
  if (out) *out = v;
  return "";
}

std::string check_real_text(const std::string& text, const ParamDecl& domain, double* out) {
  double x = 0;
  if (!parse_double(text, x)) return fmt::format("must be a {}, got {}", domain.domain_text(), shown(text));
  if (!std::isfinite(x)) {
    const std::string d = domain.domain_text();  // "finite real" when unbounded
    return fmt::format("must be a {}{}, got {}", d.rfind("finite", 0) == 0 ? "" : "finite ", d, shown(text));
  }
  if (!domain.admits(x)) return fmt::format("must be a {}, got {}", domain.domain_text(), shown(text));
  if (out) *out = x;
  return "";
}

std::string check_list_text(const std::string& text, const ParamDecl& domain, std::vector<double>* out) {
  std::vector<double> values;
  std::size_t start = 0;
  for (std::size_t item = 1;; ++item) {
    const auto comma = text.find(',', start);
    const std::string piece = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (piece.empty())
      return fmt::format("item {} of {} is empty (give one value or a comma-separated list)", item, shown(text));
    double x = 0;
    if (const std::string why = check_real_text(piece, domain, &x); !why.empty())
      return fmt::format("item {}: {}", item, why);
    values.push_back(x);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (out) *out = std::move(values);
  return "";
}

void check_output(const std::string& key, const std::string& out, const std::string& file) {
  if ((out.empty() && file == "command line") || out == "-") return;  // stdout
  if (const std::string why = output_path_problem(out); !why.empty()) throw InputError(file, 0, key, why);
  // Missing directories are created on write (docs/scenarios.md, "Outputs"); say so, so that a
  // mistyped directory does not pass unnoticed.
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path parent = fs::path(out).parent_path();
  static std::set<std::string> noted;  // one note per directory
  if (!parent.empty() && !fs::exists(parent, ec) && is_root() && noted.insert(parent.string()).second)
    fmt::print(stderr, "moelab: {}: the directory '{}' does not exist and will be created\n", key, parent.string());
}

CLI::Option* int_option(CLI::App* cmd, const std::string& flags, std::int64_t& v, std::int64_t lo, std::int64_t hi,
                        const std::string& help) {
  return cmd->add_option(flags, v, help)
      ->transform(CLI::Validator(  // transform, not check: it rewrites "1e6" as "1000000"
          [lo, hi](std::string& s) {
            std::int64_t x = 0;
            std::string why = check_integer_text(s, lo, hi, &x);
            if (why.empty()) s = std::to_string(x);  // "1e6" -> "1000000" for CLI11's conversion
            return why;
          },
          int_range_text(lo, hi)));
}

CLI::Option* int_option(CLI::App* cmd, const std::string& flags, int& v, int lo, int hi, const std::string& help) {
  return cmd->add_option(flags, v, help)
      ->transform(CLI::Validator(  // transform, not check: it rewrites "1e6" as "1000000"
          [lo, hi](std::string& s) {
            std::int64_t x = 0;
            std::string why = check_integer_text(s, lo, hi, &x);
            if (why.empty()) s = std::to_string(x);
            return why;
          },
          int_range_text(lo, hi)));
}

CLI::Option* real_option(CLI::App* cmd, const std::string& flags, double& v, const ParamDecl& domain, const std::string& help) {
  return cmd->add_option(flags, v, help)
      ->check(CLI::Validator([domain](std::string& s) { return check_real_text(s, domain); }, domain.domain_text()));
}

CLI::Option* real_list_option(CLI::App* cmd, const std::string& flags, std::vector<double>& v, const std::string& help) {
  // Read as one string and split here: CLI11's delimiter drops empty items ("1,,2" -> 1, 2).
  const ParamDecl any = real("", "");
  auto* opt = cmd->add_option_function<std::string>(
      flags, [&v, any](const std::string& s) { (void)check_list_text(s, any, &v); },
      help + " (one value or a comma-separated list)");
  opt->check(CLI::Validator([any](std::string& s) { return check_list_text(s, any); }, "LIST"));
  opt->default_str(fmt::format("{}", fmt::join(v, ",")));
  return opt;
}

CLI::Option* output_option(CLI::App* cmd, const std::string& flags, std::string& v, const std::string& help) {
  // Checked when parsed, so before any work (a directory, an unwritable place, '' are refused).
  // "-" is stdout (not a file named "-").
  return cmd->add_option(flags, v, help)->check(CLI::Validator([](std::string& s) { return s == "-" ? std::string() : output_path_problem(s); }, "FILE"));
}

CLI::Option* threads_option(CLI::App* cmd, int& v, const std::string& help) {
  return int_option(cmd, "--threads", v, 0, max_threads(),
                    fmt::format("{} (at most {}: 64 per hardware thread, within the process limits)", help, max_threads()));
}

}  // namespace moelab::cli
