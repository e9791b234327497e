// moelab: check the theory of sparse Mixture-of-Experts numerically.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>

#include <fmt/format.h>

#include "commands.hpp"
#include "moelab/core/error.hpp"
#include "moelab/core/interrupt.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/core/version.hpp"

int main(int argc, char** argv) {
  using namespace moelab;
  install_interrupt_handlers();
  // OpenMP aborts the process (exit 1, "claim failed") when it cannot create the threads it is asked
  // for: refuse an environment that asks for more than this process can run, before any loop.
  if (const char* env = std::getenv("OMP_NUM_THREADS"); env && num_threads() >= max_threads()) {
    const long asked = std::strtol(env, nullptr, 10);
    if (asked > max_threads()) {
      std::fprintf(stderr, "moelab: error: environment: key 'OMP_NUM_THREADS': must be at most %d (64 per hardware thread, "
                           "within the process limits), got %s\n", max_threads(), printable(env).c_str());
      return cli::kExitBadInput;
    }
  }
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
  } catch (const Interrupted& e) {
    std::fprintf(stderr, "moelab: %s\n", e.what());
    return cli::kExitInterrupted;
  } catch (const RuntimeFailure& e) {
    std::fprintf(stderr, "moelab: %s\n", e.what());
    return cli::kExitRuntime;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "moelab: out of memory: the run needs more memory than it could get (studies without a cost "
                         "model are not refused in advance; lower the budget, e.g. --trials or the sizes swept)\n");
    return cli::kExitRuntime;
  } catch (const std::length_error& e) {
    std::fprintf(stderr, "moelab: out of memory: an allocation was too large (%s); lower the budget\n", e.what());
    return cli::kExitRuntime;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "moelab: internal error: %s\n", e.what());
    return cli::kExitRuntime;
  }
  return exit_code;
}
