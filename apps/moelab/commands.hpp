// Subcommands of the `moelab` CLI: one file each. Exit codes (DESIGN.md): 0 ok, 1 a claim failed
// (check), 2 bad input or usage, 3 runtime failure, 128 + the signal when interrupted
// (130 SIGINT, 143 SIGTERM; nothing written, the journal kept).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "moelab/core/csv.hpp"

namespace moelab::cli {

inline constexpr int kExitOk = 0, kExitVerdictChanged = 1, kExitBadInput = 2, kExitRuntime = 3, kExitInterrupted = 130;

/// Each add_* registers a subcommand; its callback stores the exit code in `exit_code`.
void add_list(CLI::App& app, int& exit_code);
void add_describe(CLI::App& app, int& exit_code);
void add_run(CLI::App& app, int& exit_code);
void add_check(CLI::App& app, int& exit_code);
void add_spectrum(CLI::App& app, int& exit_code);
void add_bound(CLI::App& app, int& exit_code);
void add_kstar(CLI::App& app, int& exit_code);

/// Writes `t` to stdout, or atomically to `out` (and says so on stderr) when `out` is not empty.
void emit_csv(const CsvTable& t, const std::string& out);
/// Throws InputError("command line", key, reason): exit code 2 with one message naming the option.
[[noreturn]] void bad_option(const std::string& key, const std::string& reason);
/// Before any work: `out` (given with option `key`; empty = stdout) must be able to take a file.
/// `file` is where the path was given ("command line" or the scenario file); InputError otherwise.
void check_output(const std::string& key, const std::string& out, const std::string& file = "command line");

/// Directory holding scenarios/ (the source tree when run from a build, else the current directory).
/// A shipped file or folder ("plots/x.gp", "scenarios") as a path that works from any directory: the
/// working directory's, else the installed one (MOELAB_DATA_DIR), else the source tree's; `relative`
/// itself when none exists.
std::string data_path(const std::string& relative);
std::string scenario_dir();

}  // namespace moelab::cli
