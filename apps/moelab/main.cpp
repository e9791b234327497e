// moelab: check the theory of sparse Mixture-of-Experts numerically.
#include <cstdio>
#include <exception>

#include <fmt/format.h>

#include "commands.hpp"
#include "moelab/core/error.hpp"
#include "moelab/core/interrupt.hpp"
#include "moelab/core/version.hpp"

int main(int argc, char** argv) {
  using namespace moelab;
  install_interrupt_handlers();
  CLI::App app{"moelab: computes the closed forms of sparse-MoE theory papers and checks them by Monte-Carlo"};
  app.set_version_flag("--version", fmt::format("moelab {}", kVersion));
  app.require_subcommand(1);
  int exit_code = cli::kExitOk;
  cli::add_list(app, exit_code);
  cli::add_describe(app, exit_code);
  cli::add_run(app, exit_code);
  cli::add_check(app, exit_code);
  cli::add_spectrum(app, exit_code);
  cli::add_bound(app, exit_code);
  cli::add_kstar(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);  // prints help / version / the usage error
    return rc == 0 ? cli::kExitOk : cli::kExitBadInput;
  } catch (const InputError& e) {
    std::fprintf(stderr, "moelab: error: %s\n", e.what());
    return cli::kExitBadInput;
  } catch (const RuntimeFailure& e) {
    std::fprintf(stderr, "moelab: %s\n", e.what());
    return cli::kExitRuntime;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "moelab: internal error: %s\n", e.what());
    return cli::kExitRuntime;
  }
  return exit_code;
}
