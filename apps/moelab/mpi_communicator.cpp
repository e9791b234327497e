// The MPI implementation of moelab::Communicator (core/distributed.hpp). Only this file includes
// <mpi.h>; it is compiled with MPI when the build has it (MOELAB_HAVE_MPI, apps/CMakeLists.txt).
#include "mpi_session.hpp"

#include <cstdio>
#include <cstdlib>

#include "moelab/core/distributed.hpp"

#ifdef MOELAB_HAVE_MPI
#include <climits>
#include <deque>
#include <memory>

#include <mpi.h>
#include <unistd.h>

#include <fmt/format.h>

#include "moelab/core/error.hpp"
#include "moelab/core/progress.hpp"

namespace moelab::cli {

namespace {

constexpr int kTagPost = 17;

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    throw RuntimeFailure(fmt::format("MPI {} failed: {}", what, std::string(text, static_cast<std::size_t>(len))));
  }
}

int as_count(std::size_t n) {
  if (n > static_cast<std::size_t>(INT_MAX)) throw RuntimeFailure("MPI message over 2 GiB (a sweep point's rows are too large)");
  return static_cast<int>(n);
}

class MpiCommunicator final : public Communicator {
 public:
  MpiCommunicator() {
    check(MPI_Comm_dup(MPI_COMM_WORLD, &comm_), "Comm_dup");
    check(MPI_Comm_rank(comm_, &rank_), "Comm_rank");
    check(MPI_Comm_size(comm_, &size_), "Comm_size");
  }
  ~MpiCommunicator() override { MPI_Comm_free(&comm_); }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  int max_all(int local) override {
    int out = 0;
    check(MPI_Allreduce(&local, &out, 1, MPI_INT, MPI_MAX, comm_), "Allreduce");
    return out;
  }

  std::vector<std::string> gather(const std::string& mine) override {
    const int n = as_count(mine.size());
    std::vector<int> counts(rank_ == 0 ? static_cast<std::size_t>(size_) : 0);
    check(MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm_), "Gather");
    std::vector<int> displs(counts.size());
    std::size_t total = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) displs[i] = as_count(total), total += static_cast<std::size_t>(counts[i]);
    std::string all(total, '\0');
    check(MPI_Gatherv(mine.data(), n, MPI_BYTE, all.data(), counts.data(), displs.data(), MPI_BYTE, 0, comm_), "Gatherv");
    std::vector<std::string> out;
    for (std::size_t i = 0; i < counts.size(); ++i) out.push_back(all.substr(static_cast<std::size_t>(displs[i]), static_cast<std::size_t>(counts[i])));
    return out;
  }

  void broadcast(std::string& data) override {
    unsigned long long n = data.size();
    check(MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, comm_), "Bcast");
    data.resize(static_cast<std::size_t>(n));
    check(MPI_Bcast(data.data(), as_count(data.size()), MPI_BYTE, 0, comm_), "Bcast");
  }

  void post(std::string data) override {
    // Completed sends are retired first, so the queue holds only what is still in flight.
    while (!posts_.empty()) {
      int done = 0;
      check(MPI_Test(&posts_.front().request, &done, MPI_STATUS_IGNORE), "Test");
      if (!done) break;
      posts_.pop_front();
    }
    posts_.push_back(Post{std::move(data), MPI_REQUEST_NULL});
    Post& p = posts_.back();
    check(MPI_Isend(p.data.data(), as_count(p.data.size()), MPI_BYTE, 0, kTagPost, comm_, &p.request), "Isend");
  }

  bool next(int& source, std::string& data, bool wait) override {
    MPI_Status st;
    if (wait) {
      check(MPI_Probe(MPI_ANY_SOURCE, kTagPost, comm_, &st), "Probe");
    } else {
      int flag = 0;
      check(MPI_Iprobe(MPI_ANY_SOURCE, kTagPost, comm_, &flag, &st), "Iprobe");
      if (!flag) return false;
    }
    int count = 0;
    check(MPI_Get_count(&st, MPI_BYTE, &count), "Get_count");
    data.assign(static_cast<std::size_t>(count), '\0');
    source = st.MPI_SOURCE;
    check(MPI_Recv(data.data(), count, MPI_BYTE, source, kTagPost, comm_, MPI_STATUS_IGNORE), "Recv");
    return true;
  }

  void complete_posts() override {
    for (auto& p : posts_) check(MPI_Wait(&p.request, MPI_STATUS_IGNORE), "Wait");
    posts_.clear();
  }

 private:
  struct Post {
    std::string data;
    MPI_Request request;
  };
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  std::deque<Post> posts_;  // a deque: elements do not move, so the buffers stay where MPI reads them
};

std::unique_ptr<MpiCommunicator> g_comm;

/// mpirun (Open MPI), MPICH's hydra, PMIx / PMI-2 launchers (srun --mpi=pmix|pmi2).
bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "MV2_COMM_WORLD_SIZE"})
    if (std::getenv(v)) return true;
  return false;
}

}  // namespace

MpiSession::MpiSession(int& argc, char**& argv) {
  if (!launched_by_mpi()) return;
  int provided = 0;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    std::fprintf(stderr, "moelab: error: MPI_Init failed\n");
    std::exit(3);
  }
  active_ = true;
  // Errors come back as codes (check() turns them into RuntimeFailure) instead of aborting.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  g_comm = std::make_unique<MpiCommunicator>();
  set_world(g_comm.get());
  if (g_comm->rank() != 0) {
    // Rank 0 prints and writes everything; the others only compute.
    Progress::set_enabled(false);
    std::fflush(stderr);
    error_fd_ = ::dup(2);
    if (!std::freopen("/dev/null", "w", stdout)) std::fclose(stdout);
    if (!std::freopen("/dev/null", "w", stderr)) std::fclose(stderr);
  }
}

MpiSession::~MpiSession() {
  if (!active_) return;
  set_world(nullptr);
  g_comm.reset();
  MPI_Finalize();
}

void MpiSession::abort(int code) {
  if (active_) MPI_Abort(MPI_COMM_WORLD, code);
}

}  // namespace moelab::cli

#else  // a build without MPI: always rank 0 of 1

namespace moelab::cli {
MpiSession::MpiSession(int&, char**&) {}
MpiSession::~MpiSession() {}
void MpiSession::abort(int) {}
}  // namespace moelab::cli

#endif
