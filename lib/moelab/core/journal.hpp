// The journal of a long run (docs/scaleout.md, docs/hardening.md): one record per
// completed unit of work (a sweep point's rows, a claim's evidence), appended and written through
// to the file as soon as the unit completes, so that after SIGINT, SIGTERM or SIGKILL
// `--resume` redoes only the missing units and gives the same bytes as an uninterrupted run.
//
// Format (text, one line each):
//   # moelab journal 2 ...                 a comment naming the format
//   <key>: <value>                          the run's identity (kind, tool, study, seed, ...)
//   end-of-header
//   unit <index> <run id> <payload as hex> <fnv1a64 of "unit <index> <run id> <hex>" as 16 hex digits>
// The run id is the fnv1a64 of the header (the run's identity: seed, scenario hash, trials, ...), so
// a record copied from another run's journal is refused (exit 2), not trusted. A record whose line
// is incomplete or whose checksum does not match (the process died while writing it) ends the
// journal: it and anything after it are dropped and redone.
//
// The file is opened without following a link (a planted <output>.journal symlink is refused, its
// target untouched), only as a regular file (a FIFO, device or directory is refused unread, exit 2),
// and locked (flock, exclusive) while the run lasts: a second run writing the same output is refused
// with exit 2 instead of interleaving its records.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace moelab {

using JournalIdentity = std::vector<std::pair<std::string, std::string>>;

/// The largest journal file read (a journal holds one line per completed unit).
inline constexpr std::uint64_t kMaxJournalBytes = std::uint64_t{4} << 30;

class Journal {
 public:
  /// Opens the journal at `path` for a run whose identity is `identity` (ordered key: value pairs;
  /// keys are single words). Without `resume` a new journal replaces any old one (noted on stderr
  /// when it held completed units). With `resume`, an existing journal must have the same identity:
  /// InputError (exit 2) naming the journal, the key and both values otherwise; its intact records
  /// are kept (records()) and a torn last record is cut off. A missing journal under `resume` starts
  /// from the beginning (noted on stderr). RuntimeFailure when the file cannot be written.
  Journal(std::string path, const JournalIdentity& identity, bool resume);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  /// Records kept from an earlier run (resume), by unit index (not those appended since).
  const std::map<std::uint64_t, std::string>& records() const { return records_; }
  /// Appends a completed unit: written to the file at once (it survives the process being killed)
  /// and fsync'ed (to survive a machine crash) unless the previous fsync was under kSyncInterval
  /// ago, in which case the next append or the close syncs it.
  void append(std::uint64_t unit, const std::string& payload);
  const std::string& path() const { return path_; }

  /// Removes the journal of `path` (after the final output was written); no error when absent.
  static void remove(const std::string& path);

  /// Fast units are synced at most this often (a crash of the machine loses at most this much;
  /// a killed process loses nothing that append returned from).
  static constexpr std::chrono::milliseconds kSyncInterval{200};
  /// The run id written in every record (the header's fnv1a64 as 16 hex digits).
  const std::string& run_id() const { return run_id_; }

 private:
  void sync();
  std::string path_;
  std::string run_id_;
  int fd_ = -1;
  bool unsynced_ = false;
  std::chrono::steady_clock::time_point last_sync_;
  std::map<std::uint64_t, std::string> records_;
};

}  // namespace moelab
