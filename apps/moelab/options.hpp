// Strict command-line numbers: every numeric option is checked as text before
// CLI11 converts it, so an out-of-range integer is refused instead of clamped or wrapped, NaN and
// infinities are refused where a finite value is meant, an empty list item is refused instead of
// dropped, and each message names the option, its domain and the value as typed (never a 309-digit
// bound). A refused value is a CLI::ValidationError: exit code 2.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "moelab/scenario/study.hpp"

namespace moelab::cli {

/// Parses `text` as an integer in [lo, hi]: decimal digits with an optional sign, or an exact
/// integer in scientific notation up to 2^53 ("1e6"). Returns "" when it is, else the reason.
std::string check_integer_text(const std::string& text, std::int64_t lo, std::int64_t hi, std::int64_t* out = nullptr);
/// Parses `text` as a finite real admitted by `domain` (a ParamDecl's bounds); "" or the reason.
std::string check_real_text(const std::string& text, const ParamDecl& domain, double* out = nullptr);
/// A comma-separated list of finite reals admitted by `domain`, no empty item; "" or the reason.
std::string check_list_text(const std::string& text, const ParamDecl& domain, std::vector<double>* out = nullptr);

CLI::Option* int_option(CLI::App* cmd, const std::string& flags, std::int64_t& v, std::int64_t lo, std::int64_t hi,
                        const std::string& help);
CLI::Option* int_option(CLI::App* cmd, const std::string& flags, int& v, int lo, int hi, const std::string& help);
/// A real option; `domain` states its bounds (e.g. real("", "").positive()); NaN/inf always refused.
CLI::Option* real_option(CLI::App* cmd, const std::string& flags, double& v, const ParamDecl& domain, const std::string& help);
/// One value or a comma-separated list of finite reals (no empty item); the default stays when absent.
CLI::Option* real_list_option(CLI::App* cmd, const std::string& flags, std::vector<double>& v, const std::string& help);
/// An output file path: must not be empty when given.
CLI::Option* output_option(CLI::App* cmd, const std::string& flags, std::string& v, const std::string& help);
/// The number of threads the runtime can run (`max_threads()` of core/parallel.hpp) as an option bound.
CLI::Option* threads_option(CLI::App* cmd, int& v, const std::string& help);

}  // namespace moelab::cli
