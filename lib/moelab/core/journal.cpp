#include "moelab/core/journal.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include "moelab/core/distributed.hpp"
#include "moelab/core/error.hpp"

namespace moelab {

namespace {

constexpr const char* kMagic = "# moelab journal 1: completed units of an unfinished run; continue it with --resume";
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

std::string record_line(std::uint64_t unit, const std::string& payload) {
  std::string body = fmt::format("unit {} {}", unit, to_hex(payload));
  return fmt::format("{} {:016x}\n", body, fnv1a64(body));
}

/// Parses one record line (without its newline); false when torn or corrupt.
bool parse_record(const std::string& line, std::uint64_t& unit, std::string& payload) {
  const auto last = line.rfind(' ');
  if (line.rfind("unit ", 0) != 0 || last == std::string::npos || line.size() - last - 1 != 16) return false;
  const std::string body = line.substr(0, last);
  if (fmt::format("{:016x}", fnv1a64(body)) != line.substr(last + 1)) return false;
  const auto mid = body.find(' ', 5);
  if (mid == std::string::npos) return false;
  const std::string index = body.substr(5, mid - 5);
  if (index.empty() || index.size() > 19 || index.find_first_not_of("0123456789") != std::string::npos) return false;
  unit = std::stoull(index);
  return from_hex(body.substr(mid + 1), payload);
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

Journal::Journal(std::string path, const JournalIdentity& identity, bool resume) : path_(std::move(path)) {
  namespace fs = std::filesystem;
  std::string header = std::string(kMagic) + "\n";
  for (const auto& [k, v] : identity) header += fmt::format("{}: {}\n", k, v);
  header += std::string(kEndOfHeader) + "\n";

  std::error_code ec;
  const bool exists = fs::exists(path_, ec);
  std::size_t keep = 0;  // bytes of the old journal kept (header + intact records)
  if (resume && exists) {
    std::ifstream in(path_, std::ios::binary);
    if (!in) throw RuntimeFailure(fmt::format("cannot read the journal '{}': {}", path_, std::strerror(errno)));
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
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
    if (exists && !text.empty() && !header_ok && text.rfind("# moelab journal", 0) != 0)
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
      std::string payload;
      while (next_line(line) && parse_record(line, unit, payload)) {
        records_[unit] = std::move(payload);
        keep = pos;
      }
      if (keep < text.size())
        std::fprintf(stderr, "moelab: note: journal '%s': dropped an incomplete last record (the run was killed while "
                             "writing it); that unit is redone\n", path_.c_str());
      std::fprintf(stderr, "moelab: resuming from '%s': %zu units already done\n", path_.c_str(), records_.size());
    } else {
      std::fprintf(stderr, "moelab: note: journal '%s' has an incomplete header (killed before any unit finished); "
                           "starting from the beginning\n", path_.c_str());
    }
  } else if (resume) {
    std::fprintf(stderr, "moelab: note: --resume: no journal at '%s'; starting from the beginning\n", path_.c_str());
  } else if (exists) {
    std::ifstream in(path_);
    std::string line;
    std::size_t units = 0;
    while (std::getline(in, line)) units += line.rfind("unit ", 0) == 0;
    if (units > 0)
      std::fprintf(stderr, "moelab: note: replacing the journal '%s' of an unfinished run (%zu units; pass --resume to "
                           "continue it instead)\n", path_.c_str(), units);
  }

  const fs::path p(path_);
  if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (keep > 0 ? 0 : O_TRUNC), 0644);
  if (fd_ < 0) throw RuntimeFailure(fmt::format("cannot write the journal '{}': {}", path_, std::strerror(errno)));
  if (keep > 0) {
    // Cut a torn last record off, then append after the intact ones.
    if (::ftruncate(fd_, static_cast<off_t>(keep)) != 0 || ::lseek(fd_, 0, SEEK_END) < 0)
      throw RuntimeFailure(fmt::format("cannot write the journal '{}': {}", path_, std::strerror(errno)));
  } else {
    write_all(fd_, header, path_);
  }
  unsynced_ = true;
  sync();
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
  write_all(fd_, record_line(unit, payload), path_);
  unsynced_ = true;
  if (std::chrono::steady_clock::now() - last_sync_ >= kSyncInterval) sync();
}

void Journal::remove(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove(path, ec);
}

}  // namespace moelab
