// moelab: check the theory of sparse Mixture-of-Experts numerically.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <string>

#include <unistd.h>

#include <fmt/format.h>

#include "commands.hpp"
#include "mpi_session.hpp"
#include "moelab/core/distributed.hpp"
#include "moelab/core/error.hpp"
#include "moelab/core/interrupt.hpp"
#include "moelab/core/interrupt_status.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/core/version.hpp"

int main(int argc, char** argv) {
  using namespace moelab;
  // MPI first (when launched by mpirun/srun and built with it): our SIGINT/SIGTERM handlers then
  // take precedence over any the MPI library installs.
  cli::MpiSession mpi(argc, argv);
  install_interrupt_handlers();
  // One message per failure: rank 0 prints it (a failure on another rank reaches rank 0 through
  // agree_on_failure); every rank exits with the same code. A failure that the ranks did not agree
  // on (a bug) aborts the whole job rather than leave the other ranks waiting.
  const auto fail = [&mpi](int code, const std::string& message) {
    if (is_root() || !failure_agreed()) {
      const std::string line = "moelab: " + message + "\n";
      if (is_root()) std::fputs(line.c_str(), stderr);
      else if (::write(mpi.error_fd(), line.data(), line.size()) < 0) {
      }
    }
    if (world().size() > 1 && !failure_agreed()) mpi.abort(code);
    return code;
  };
  // OpenMP aborts the process (exit 1, "claim failed") when it cannot create the threads it is asked
  // for: refuse an environment that asks for more than this process can run, before any loop.
  if (const char* env = std::getenv("OMP_NUM_THREADS"); env && num_threads() >= max_threads()) {
    const long asked = std::strtol(env, nullptr, 10);
    if (asked > max_threads()) {
      // Every rank sees the same environment: no agreement needed, rank 0 prints.
      if (is_root())
        std::fprintf(stderr, "moelab: error: environment: key 'OMP_NUM_THREADS': must be at most %d (64 per hardware thread, "
                             "within the process limits), got %s\n", max_threads(), printable(env).c_str());
      return cli::kExitBadInput;
    }
  }
  CLI::App app{"moelab: computes the closed forms of sparse-MoE theory papers and checks them by Monte-Carlo"};
  app.set_version_flag("--version", version_text());
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
    // Every rank parses the same command line; rank 0 prints help / version / the usage error.
    const int rc = is_root() ? app.exit(e) : e.get_exit_code();
    return rc == 0 ? cli::kExitOk : cli::kExitBadInput;
  } catch (const QuietExit& e) {
    return e.code();  // ranks > 0: rank 0 reports the failure
  } catch (const InputError& e) {
    return fail(cli::kExitBadInput, fmt::format("error: {}", e.what()));
  } catch (const Interrupted& e) {
    return fail(interrupt_exit_code(), e.what());
  } catch (const RuntimeFailure& e) {
    return fail(cli::kExitRuntime, e.what());
  } catch (const std::bad_alloc&) {
    return fail(cli::kExitRuntime, "out of memory: the run needs more memory than it could get (studies without a cost "
                                   "model are not refused in advance; lower the budget, e.g. --trials or the sizes swept)");
  } catch (const std::length_error& e) {
    return fail(cli::kExitRuntime, fmt::format("out of memory: an allocation was too large ({}); lower the budget", e.what()));
  } catch (const std::exception& e) {
    return fail(cli::kExitRuntime, fmt::format("internal error: {}", e.what()));
  }
  return exit_code;
}
