#include "moelab/core/distributed.hpp"

#include <cstring>
#include <new>
#include <stdexcept>

#include <fmt/format.h>

#include "moelab/core/error.hpp"
#include "moelab/core/interrupt_status.hpp"

namespace moelab {

void ByteWriter::u64(std::uint64_t v) {
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>((v >> (8 * i)) & 0xff);
  out_.append(b, 8);
}

void ByteWriter::f64(double v) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  u64(bits);
}

void ByteWriter::str(std::string_view s) {
  u64(s.size());
  out_.append(s.data(), s.size());
}

std::uint64_t ByteReader::u64() {
  if (in_.size() - pos_ < 8) throw RuntimeFailure("truncated record (a message or journal entry ends early)");
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(in_[pos_ + i])) << (8 * i);
  pos_ += 8;
  return v;
}

double ByteReader::f64() {
  const std::uint64_t bits = u64();
  double v = 0;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

std::string ByteReader::str() {
  const std::uint64_t n = u64();
  if (n > in_.size() - pos_) throw RuntimeFailure("truncated record (a message or journal entry ends early)");
  std::string s(in_.substr(pos_, n));
  pos_ += n;
  return s;
}

void put_rows(ByteWriter& w, const std::vector<std::vector<CsvCell>>& rows) {
  w.u64(rows.size());
  for (const auto& row : rows) {
    w.u64(row.size());
    for (const auto& cell : row) {
      w.u64(cell.index());
      if (const auto* d = std::get_if<double>(&cell)) w.f64(*d);
      else if (const auto* i = std::get_if<std::int64_t>(&cell)) w.i64(*i);
      else w.str(std::get<std::string>(cell));
    }
  }
}

std::vector<std::vector<CsvCell>> get_rows(ByteReader& r) {
  std::vector<std::vector<CsvCell>> rows(r.u64());
  for (auto& row : rows) {
    row.resize(r.u64());
    for (auto& cell : row) {
      switch (r.u64()) {
        case 0: cell = r.f64(); break;
        case 1: cell = r.i64(); break;
        case 2: cell = r.str(); break;
        default: throw RuntimeFailure("malformed record (unknown cell type)");
      }
    }
  }
  return rows;
}

std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t h) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

namespace {

/// Rank 0 of 1: what the library, the Python module and the tests run on.
class SerialCommunicator final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  int max_all(int local) override { return local; }
  std::vector<std::string> gather(const std::string& mine) override { return {mine}; }
  void broadcast(std::string&) override {}
  void post(std::string) override { MOELAB_EXPECT(false, "post on a serial communicator (rank 0 keeps its own results)"); }
  bool next(int&, std::string&, bool wait) override {
    MOELAB_EXPECT(!wait, "waiting for a message on a serial communicator");
    return false;
  }
  void complete_posts() override {}
};

SerialCommunicator g_serial;
// Per thread: the CLI calls world() from its main thread only; the tests run ranks as threads.
thread_local Communicator* g_world = nullptr;
thread_local bool g_failure_agreed = false;
thread_local bool g_agreement_started = false;

// Failure kinds carried between ranks.
enum : std::uint64_t { kInput = 1, kInterrupted = 2, kRuntime = 3, kBadAlloc = 4, kLengthError = 5, kInternal = 6 };

std::string encode_failure(const std::exception_ptr& e) {
  ByteWriter w;
  try {
    std::rethrow_exception(e);
  } catch (const InputError& x) {
    w.u64(kInput), w.str(x.file()), w.i64(x.line()), w.str(x.key()), w.str(x.reason());
  } catch (const Interrupted& x) {
    w.u64(kInterrupted), w.str(x.what()), w.i64(interrupt_signal());
  } catch (const QuietExit& x) {
    w.u64(kRuntime), w.str(x.what());
  } catch (const RuntimeFailure& x) {
    w.u64(kRuntime), w.str(x.what());
  } catch (const std::bad_alloc&) {
    w.u64(kBadAlloc);
  } catch (const std::length_error& x) {
    w.u64(kLengthError), w.str(x.what());
  } catch (const std::exception& x) {
    w.u64(kInternal), w.str(x.what());
  } catch (...) {
    w.u64(kInternal), w.str("unknown exception");
  }
  return w.take();
}

[[noreturn]] void throw_failure(const std::string& bytes, int from_rank) {
  ByteReader r(bytes);
  const auto kind = r.u64();
  const std::string where = from_rank > 0 ? fmt::format(" (on rank {})", from_rank) : "";
  switch (kind) {
    case kInput: {
      std::string file = r.str();
      const int line = static_cast<int>(r.i64());
      std::string key = r.str();
      std::string reason = r.str();
      throw InputError(std::move(file), line, std::move(key), reason + where);
    }
    case kInterrupted: {
      std::string what = r.str();
      mark_interrupted(static_cast<int>(r.i64()));  // the exit code of the signal the other rank saw
      throw Interrupted(what + where);
    }
    case kRuntime: throw RuntimeFailure(r.str() + where);
    case kBadAlloc: throw std::bad_alloc();
    case kLengthError: throw std::length_error(r.str() + where);
    default: throw std::logic_error(r.str() + where);
  }
}

}  // namespace

Communicator& world() { return g_world ? *g_world : g_serial; }
void set_world(Communicator* c) { g_world = c; }

bool failure_agreed() { return g_failure_agreed || !g_agreement_started; }

int exit_code_of(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const InputError&) {
    return 2;
  } catch (const Interrupted&) {
    return interrupt_exit_code();
  } catch (const QuietExit& q) {
    return q.code();
  } catch (...) {
    return 3;
  }
}

void agree_on_failure(const std::exception_ptr& local) {
  Communicator& c = world();
  if (c.size() == 1) {
    if (local) std::rethrow_exception(local);
    return;
  }
  g_agreement_started = true;
  if (c.max_all(local ? 1 : 0) == 0) return;
  g_failure_agreed = true;
  const auto all = c.gather(local ? encode_failure(local) : std::string());
  std::string code_text;
  int first = -1;
  if (c.rank() == 0) {
    for (std::size_t i = 0; i < all.size() && first < 0; ++i)
      if (!all[i].empty()) first = static_cast<int>(i);
    code_text = fmt::format("{}", first == 0 && local ? exit_code_of(local) : 0);
    if (first > 0) {
      // The code of the remote failure: decode it the way throw_failure would.
      try {
        throw_failure(all[static_cast<std::size_t>(first)], first);
      } catch (...) {
        code_text = fmt::format("{}", exit_code_of(std::current_exception()));
      }
    }
  }
  c.broadcast(code_text);
  if (c.rank() != 0) throw QuietExit(std::stoi(code_text));
  if (first == 0) std::rethrow_exception(local);
  throw_failure(all[static_cast<std::size_t>(first)], first);
}

namespace {
enum : std::uint64_t { kShardUnit = 1, kShardDone = 2 };  // the message kinds of ShardCollector
}  // namespace

void ShardCollector::post(std::uint64_t unit, std::string_view payload) {
  ByteWriter w;
  w.u64(kShardUnit), w.u64(unit), w.blob(payload);
  comm_.post(w.take());
}

void ShardCollector::receive(bool wait) {
  const int others = comm_.size() - 1;
  if (comm_.rank() != 0) return;
  int source = 0;
  std::string message;
  while (finished_ranks_ < others && comm_.next(source, message, wait)) {
    ByteReader r(message);
    if (r.u64() == kShardDone) {
      ++finished_ranks_;
      continue;
    }
    const std::uint64_t unit = r.u64();
    std::string payload = r.blob();
    if (failure_) continue;  // keep draining; the run fails anyway
    try {
      on_unit_(unit, std::move(payload));
    } catch (...) {
      failure_ = std::current_exception();
    }
  }
}

void ShardCollector::finish() {
  if (comm_.size() > 1) {
    if (comm_.rank() == 0) {
      receive(true);
    } else {
      ByteWriter w;
      w.u64(kShardDone);
      comm_.post(w.take());
      comm_.complete_posts();
    }
  }
  agree_on_failure(failure_);
}

}  // namespace moelab
