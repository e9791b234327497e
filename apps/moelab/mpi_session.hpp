// MPI for the moelab executable (docs/scaleout.md): started only when the build has MPI
// (MOELAB_MPI) and the process was launched by mpirun / srun (their environment variables say
// so); otherwise the executable is rank 0 of 1, exactly as without MPI.
#pragma once

namespace moelab::cli {

class MpiSession {
 public:
  /// Initialises MPI (MPI_THREAD_FUNNELED: only the main thread calls MPI; OpenMP threads compute)
  /// and installs its communicator as moelab::world(); ranks > 0 get their stdout and stderr silenced and the
  /// progress bar off (rank 0 prints and writes everything).
  MpiSession(int& argc, char**& argv);
  /// Finalises MPI.
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  /// Ends every rank at once with `code` (a failure the ranks did not agree on would otherwise leave
  /// the others waiting); returns only when MPI is not running.
  void abort(int code);
  bool active() const { return active_; }
  /// Where error messages go: stderr, or on ranks > 0 (whose stderr is silenced) the original stderr.
  int error_fd() const { return error_fd_; }

 private:
  bool active_ = false;
  int error_fd_ = 2;
};

}  // namespace moelab::cli
