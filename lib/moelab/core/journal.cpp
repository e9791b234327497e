#include "moelab/core/journal.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "moelab/core/distributed.hpp"
#include "moelab/core/error.hpp"

namespace moelab {

namespace {

constexpr const char* kMagic = "# moelab journal 2: completed units of an unfinished run; continue it with --resume";
constexpr const char* kEndOfHeader = "end-of-header";

std::string to_hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out(2 * bytes.size(), '0');
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const auto b = static_cast<unsigned char>(bytes[i]);
    out[2 * i] = digits[b >> 4], out[2 * i + 1] = digits[b & 15];
  }
  return out;
}

bool from_hex(const std::string& hex, std::string& out) {
  if (hex.size() % 2) return false;
  out.assign(hex.size() / 2, '\0');
  const auto val = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; };
  for (std::size_t i = 0; i < out.size(); ++i) {
    const int hi = val(hex[2 * i]), lo = val(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    out[i] = static_cast<char>(hi * 16 + lo);
  }
  return true;
}

std::string record_line(std::uint64_t unit, const std::string& run, const std::string& payload) {
  std::string body = fmt::format("unit {} {} {}", unit, run, to_hex(payload));
  return fmt::format("{} {:016x}\n", body, fnv1a64(body));
}

enum class RecordStatus { ok, damaged };

/// Parses one record line (without its newline) into its unit, run id and payload; damaged when torn
/// or corrupt (the checksum covers the unit, the run id and the payload).
RecordStatus parse_record(const std::string& line, std::uint64_t& unit, std::string& run, std::string& payload) {
  const auto last = line.rfind(' ');
  if (line.rfind("unit ", 0) != 0 || last == std::string::npos || line.size() - last - 1 != 16) return RecordStatus::damaged;
  const std::string body = line.substr(0, last);
  if (fmt::format("{:016x}", fnv1a64(body)) != line.substr(last + 1)) return RecordStatus::damaged;
  const auto mid = body.find(' ', 5);
  if (mid == std::string::npos) return RecordStatus::damaged;
  const auto mid2 = body.find(' ', mid + 1);
  if (mid2 == std::string::npos) return RecordStatus::damaged;
  const std::string index = body.substr(5, mid - 5);
  if (index.empty() || index.size() > 19 || index.find_first_not_of("0123456789") != std::string::npos)
    return RecordStatus::damaged;
  unit = std::stoull(index);
  run = body.substr(mid + 1, mid2 - mid - 1);
  return from_hex(body.substr(mid2 + 1), payload) ? RecordStatus::ok : RecordStatus::damaged;
}

void write_all(int fd, const std::string& text, const std::string& path) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t w = ::write(fd, text.data() + done, text.size() - done);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw RuntimeFailure(fmt::format("cannot write the journal '{}': {}", path, std::strerror(errno)));
    }
    done += static_cast<std::size_t>(w);
  }
}

}  // namespace

namespace {

/// Opens the journal file for reading and writing without following a link, blocking on a FIFO or
/// reading a device: refused (InputError, exit 2) unless it is a regular file or absent (then
/// created exclusively). Returns the descriptor.
int open_journal_file(const std::string& path) {
  struct stat st {};
  const bool existed = ::lstat(path.c_str(), &st) == 0;
  const auto refuse = [&](const std::string& why) { throw InputError(path, 0, "journal", why); };
  const auto kind = [](mode_t m) {
    return S_ISLNK(m) ? "a symbolic link" : S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO"
         : S_ISSOCK(m) ? "a socket" : "a device";
  };
  const std::string fix = "remove it or choose another output (the journal is <output>.journal)";
  if (existed && !S_ISREG(st.st_mode))
    refuse(fmt::format("is {}, not a journal file (a journal is never written through a link or into a special "
                       "file); {}", kind(st.st_mode), fix));
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | (existed ? 0 : O_CREAT | O_EXCL), 0644);
  if (fd < 0) {
    const int e = errno;
    if (e == ELOOP) refuse("is a symbolic link; a journal is never written through a link; " + fix);
    if (e == EISDIR) refuse("is a directory, not a journal file; " + fix);
    if (e == EEXIST) refuse("appeared while moelab was creating it (another run writing the same output?)");
    if (e == ENAMETOOLONG) refuse(fmt::format("the name is too long: {}", std::strerror(e)));
    throw RuntimeFailure(fmt::format("cannot open the journal '{}': {}", path, std::strerror(e)));
  }
  // Checked again on the open descriptor: the path may have been replaced since lstat.
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    refuse(fmt::format("is {}, not a journal file; {}", kind(st.st_mode), fix));
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  // One writer at a time: a second run writing the same output would interleave its records with
  // this one's (and its output would replace this one's).
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int e = errno;
    ::close(fd);
    if (e == EWOULDBLOCK)
      refuse("another moelab run is writing this output (its journal is locked); wait for it to finish, or choose "
             "another output");
    throw RuntimeFailure(fmt::format("cannot lock the journal '{}': {}", path, std::strerror(e)));
  }
  return fd;
}

std::string read_fd(int fd, const std::string& path) {
  struct stat st {};
  if (::fstat(fd, &st) == 0 && static_cast<std::uint64_t>(st.st_size) > kMaxJournalBytes)
    throw InputError(path, 0, "journal",
                     fmt::format("is {} bytes, larger than the {} bytes a journal may have; not a moelab journal?",
                                 st.st_size, kMaxJournalBytes));
  std::string text;
  char buf[65536];
  for (off_t at = 0;;) {
    const ssize_t r = ::pread(fd, buf, sizeof buf, at);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw RuntimeFailure(fmt::format("cannot read the journal '{}': {}", path, std::strerror(errno)));
    if (r == 0) break;
    text.append(buf, static_cast<std::size_t>(r));
    at += r;
    if (text.size() > kMaxJournalBytes)
      throw InputError(path, 0, "journal", fmt::format("is larger than the {} bytes a journal may have", kMaxJournalBytes));
  }
  return text;
}

}  // namespace

Journal::Journal(std::string path, const JournalIdentity& identity, bool resume) : path_(std::move(path)) {
  namespace fs = std::filesystem;
  std::string header = std::string(kMagic) + "\n";
  for (const auto& [k, v] : identity) header += fmt::format("{}: {}\n", k, v);
  header += std::string(kEndOfHeader) + "\n";
  run_id_ = fmt::format("{:016x}", fnv1a64(header));

  const fs::path p(path_);
  std::error_code ec;
  if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
  struct stat st {};
  const bool exists = ::lstat(path_.c_str(), &st) == 0;
  fd_ = open_journal_file(path_);  // refuses links, special files and a second writer
  std::size_t keep = 0;  // bytes of the old journal kept (header + intact records)
  try {
    if (resume && exists) {
      const std::string text = read_fd(fd_, path_);
      // The header: the same identity, key by key (a torn header = nothing done yet: start over).
      std::size_t pos = 0;
      int line_no = 0;
      const auto next_line = [&](std::string& line) {
        const auto nl = text.find('\n', pos);
        if (nl == std::string::npos) return false;
        line = text.substr(pos, nl - pos);
        pos = nl + 1;
        ++line_no;
        return true;
      };
      std::string line;
      bool header_ok = next_line(line) && line.rfind("# moelab journal", 0) == 0;
      if (!text.empty() && !header_ok && text.rfind("# moelab journal", 0) != 0)
        throw InputError(path_, 1, "journal", "not a moelab journal; remove it or run without --resume");
      if (header_ok && line != kMagic)
        throw InputError(path_, 1, "journal", "written by another journal format; rerun without --resume to start over");
      std::size_t i = 0;
      while (header_ok) {
        if (!next_line(line)) {
          header_ok = false;
          break;
        }
        if (line == kEndOfHeader) break;
        const auto colon = line.find(": ");
        const std::string key = colon == std::string::npos ? line : line.substr(0, colon);
        const std::string value = colon == std::string::npos ? "" : line.substr(colon + 2);
        if (i >= identity.size() || identity[i].first != key)
          throw InputError(path_, line_no, key.empty() ? "journal" : key,
                           "the journal does not match this run's header (another moelab version or command); rerun "
                           "without --resume to start over");
        if (identity[i].second != value)
          throw InputError(path_, line_no, key,
                           fmt::format("the journal was written by a run with {} = '{}', this run has '{}': it belongs to "
                                       "another {}; rerun without --resume to start over (the journal is then replaced), "
                                       "or resume with the original settings",
                                       key, printable(value), identity[i].second,
                                       key == "tool" ? "moelab build" : key == "scenario_hash" ? "scenario file" : key));
        ++i;
      }
      if (header_ok && i != identity.size())
        throw InputError(path_, line_no, identity[i].first,
                         "the journal lacks this key (another moelab version); rerun without --resume to start over");
      if (header_ok) {
        keep = pos;
        std::uint64_t unit = 0;
        std::string payload, run;
        for (;;) {
          const std::size_t at = pos;
          if (!next_line(line)) break;
          const RecordStatus rs = parse_record(line, unit, run, payload);
          if (rs == RecordStatus::ok && run != run_id_)
            throw InputError(path_, line_no, "journal",
                             fmt::format("the record of unit {} belongs to another run (run id {}, this run's is {}): "
                                         "records of two runs were mixed; rerun without --resume to start over",
                                         unit, printable(run), run_id_));
          if (rs != RecordStatus::ok) {
            pos = at;
            break;
          }
          records_[unit] = std::move(payload);
          keep = pos;
        }
        if (keep < text.size()) {
          // A kill can tear only the last record: anything after a bad line is damage (an edit, a
          // disk error), reported as such; from the bad line on, the units are redone.
          const std::size_t rest_lines = static_cast<std::size_t>(std::count(text.begin() + static_cast<std::ptrdiff_t>(keep), text.end(), '\n'));
          const bool last = rest_lines == 0 || (rest_lines == 1 && text.back() == '\n');
          if (last)
            std::fprintf(stderr, "moelab: note: journal '%s': dropped an incomplete last record (the run was killed while "
                                 "writing it); that unit is redone\n", printable(path_).c_str());
          else
            std::fprintf(stderr, "moelab: warning: journal '%s' is damaged at line %d (a record whose checksum does not "
                                 "match, followed by %zu more lines): it and everything after it are dropped and redone\n",
                         printable(path_).c_str(), line_no, rest_lines - 1);
        }
        std::fprintf(stderr, "moelab: resuming from '%s': %zu units already done\n", printable(path_).c_str(), records_.size());
      } else {
        std::fprintf(stderr, "moelab: note: journal '%s' has an incomplete header (killed before any unit finished); "
                             "starting from the beginning\n", printable(path_).c_str());
      }
    } else if (resume) {
      std::fprintf(stderr, "moelab: note: --resume: no journal at '%s'; starting from the beginning\n", printable(path_).c_str());
    } else if (exists) {
      const std::string text = read_fd(fd_, path_);
      std::size_t units = 0;
      for (std::size_t at = 0; at < text.size();) {
        units += text.compare(at, 5, "unit ") == 0;
        const auto nl = text.find('\n', at);
        if (nl == std::string::npos) break;
        at = nl + 1;
      }
      if (units > 0)
        std::fprintf(stderr, "moelab: note: replacing the journal '%s' of an unfinished run (%zu units; pass --resume to "
                             "continue it instead)\n", printable(path_).c_str(), units);
    }
    // Cut a torn last record off (or everything, for a new run), then append.
    if (::ftruncate(fd_, static_cast<off_t>(keep)) != 0 || ::lseek(fd_, 0, SEEK_END) < 0)
      throw RuntimeFailure(fmt::format("cannot write the journal '{}': {}", path_, std::strerror(errno)));
    if (keep == 0) write_all(fd_, header, path_);
    unsynced_ = true;
    sync();
  } catch (...) {
    ::close(fd_);
    fd_ = -1;
    if (!exists) ::unlink(path_.c_str());  // created by this run: leave nothing behind
    throw;
  }
}

Journal::~Journal() {
  if (fd_ >= 0) {
    if (unsynced_) ::fsync(fd_);
    ::close(fd_);
  }
}

void Journal::sync() {
  if (::fsync(fd_) != 0)
    throw RuntimeFailure(fmt::format("cannot write the journal '{}': {}", path_, std::strerror(errno)));
  unsynced_ = false;
  last_sync_ = std::chrono::steady_clock::now();
}

void Journal::append(std::uint64_t unit, const std::string& payload) {
  // One write per record: the line reaches the file (the page cache) whole or, if the process dies
  // inside write(), torn, which the reader detects by the checksum.
  write_all(fd_, record_line(unit, run_id_, payload), path_);
  unsynced_ = true;
  if (std::chrono::steady_clock::now() - last_sync_ >= kSyncInterval) sync();
}

void Journal::remove(const std::string& path) {
  // Only a regular file: a link or special file at that name was never this run's journal. And not
  // one that another run holds (locked): between this run's journal closing and this removal, a new
  // run writing the same output may have started its own.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ::flock(fd, LOCK_EX | LOCK_NB) == 0) ::unlink(path.c_str());
  ::close(fd);
}

}  // namespace moelab
