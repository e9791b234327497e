// Ranks of a distributed run (docs/scaleout.md). The library sees only this abstract
// communicator; the moelab executable installs an MPI one (apps/moelab/mpi_communicator.cpp) when it
// is built with MOELAB_MPI and started by mpirun/srun, so no MPI header is in any public header and
// the library, the Python module and every test run as rank 0 of 1 without MPI.
//
// Determinism: a unit of work (a sweep point, a block of trials, a claim) depends only on its key,
// never on which rank ran it; rank 0 receives every unit's result and assembles them in unit order,
// so the output bytes do not depend on the number of ranks (nor of threads).
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "moelab/core/csv.hpp"

namespace moelab {

/// Exact little-endian bytes of values (doubles by their bit patterns), for messages between
/// ranks and journal records.
class ByteWriter {
 public:
  void u64(std::uint64_t v);
  void i64(std::int64_t v) { u64(static_cast<std::uint64_t>(v)); }
  void f64(double v);
  void boolean(bool v) { u64(v ? 1 : 0); }
  void str(std::string_view s);
  /// Raw bytes with their length.
  void blob(std::string_view s) { str(s); }
  const std::string& bytes() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

/// Reads what a ByteWriter wrote; RuntimeFailure ("truncated record") when the bytes run out.
class ByteReader {
 public:
  explicit ByteReader(std::string_view bytes) : in_(bytes) {}
  std::uint64_t u64();
  std::int64_t i64() { return static_cast<std::int64_t>(u64()); }
  double f64();
  bool boolean() { return u64() != 0; }
  std::string str();
  std::string blob() { return str(); }
  bool done() const { return pos_ == in_.size(); }

 private:
  std::string_view in_;
  std::size_t pos_ = 0;
};

/// Rows of CSV cells with their types (a double stays a double, an integer an integer).
void put_rows(ByteWriter& w, const std::vector<std::vector<CsvCell>>& rows);
std::vector<std::vector<CsvCell>> get_rows(ByteReader& r);

/// 64-bit FNV-1a of bytes (journal checksums and identities; not cryptographic).
std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t h = 1469598103934665603ull);

/// Appends the object representation of v (a trivially copyable value) to out: the fixed-size fields of
/// a saved training state, read back with memcpy on the same build.
template <class T>
void append_bytes(std::string& out, const T& v) {
  static_assert(std::is_trivially_copyable_v<T>);
  out.append(reinterpret_cast<const char*>(&v), sizeof(T));
}

/// The ranks of a run. Collective calls must be made by every rank in the same order.
class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// Collective: the largest `local` over all ranks.
  virtual int max_all(int local) = 0;
  /// Collective: rank 0 gets every rank's bytes in rank order; the other ranks get an empty vector.
  virtual std::vector<std::string> gather(const std::string& mine) = 0;
  /// Collective: rank 0's `data` on every rank.
  virtual void broadcast(std::string& data) = 0;
  /// Ranks > 0: sends `data` to rank 0 without waiting for it to be received (messages from one
  /// rank arrive in the order posted).
  virtual void post(std::string data) = 0;
  /// Rank 0: the next posted message (its source rank and bytes); waits for one when `wait`,
  /// else returns false when none has arrived.
  virtual bool next(int& source, std::string& data, bool wait) = 0;
  /// Waits until every message this rank posted was delivered.
  virtual void complete_posts() = 0;
};

/// The communicator of this process: the one installed by set_world, else the serial one (rank 0 of 1).
Communicator& world();
/// Installs `c` for the calling thread (owned by the caller, alive until set_world(nullptr));
/// nullptr restores the serial one. Per thread, so that tests can run ranks as threads.
void set_world(Communicator* c);
inline bool is_root() { return world().rank() == 0; }

/// Thrown on ranks > 0 when the run failed: the CLI exits with `code` and prints nothing (rank 0
/// prints the one message).
class QuietExit : public std::exception {
 public:
  explicit QuietExit(int code) : code_(code) {}
  int code() const { return code_; }
  const char* what() const noexcept override { return "another rank reported the failure"; }

 private:
  int code_;
};

/// The CLI exit code class of an exception: 2 (InputError), 130 (Interrupted), 3 (anything else).
int exit_code_of(const std::exception_ptr& e);

/// Collective failure agreement: every rank passes the exception it caught (nullptr: none). When
/// any rank failed, every rank throws: rank 0 the failure of the lowest failing rank (the same type,
/// InputError with its file/line/key, and message), the others QuietExit with that failure's code.
/// Returns normally on every rank when none failed. Serial: rethrows `local` if set.
void agree_on_failure(const std::exception_ptr& local);
/// True when a failure on this process needs no further agreement: agree_on_failure has thrown
/// (every rank knows and exits with the same code), or it was never called (every rank runs the same
/// serial code: `list`, `describe`, a bad command line, all fail alike). False after a run's first
/// agreement when a failure escaped the agreements (a bug): other ranks may be waiting in a
/// collective, so the CLI aborts the whole job (MPI_Abort) instead of hanging.
bool failure_agreed();

/// The collecting side of a sharded loop (`run`'s whole points, `check`'s claims): each rank computes
/// its own units; ranks > 0 post each finished unit's bytes to rank 0 as it completes (`post`); rank 0
/// handles what has arrived between its own units (`poll`) and, after them, everything until every
/// other rank said it is done (`finish`). Messages: {1, unit, payload} and {2} (done). A failure of
/// `on_unit` is kept in the caller's `failure` and the remaining messages are still drained, so every
/// rank reaches the agreement that ends `finish`. Serial (one rank): post/poll do nothing, finish
/// only agrees.
class ShardCollector {
 public:
  using Handler = std::function<void(std::uint64_t unit, std::string payload)>;
  ShardCollector(Communicator& comm, std::exception_ptr& failure, Handler on_unit)
      : comm_(comm), failure_(failure), on_unit_(std::move(on_unit)) {}
  /// Rank > 0: one finished unit to rank 0 (does not wait for delivery).
  void post(std::uint64_t unit, std::string_view payload);
  /// Rank 0: handles the units that have arrived, without waiting.
  void poll() { receive(false); }
  /// Every rank, once, after its own units: rank 0 handles units until every other rank is done; a
  /// rank > 0 says it is done and waits until its posts were delivered. Then agree_on_failure(failure).
  void finish();

 private:
  void receive(bool wait);
  Communicator& comm_;
  std::exception_ptr& failure_;
  Handler on_unit_;
  int finished_ranks_ = 0;
};

}  // namespace moelab
