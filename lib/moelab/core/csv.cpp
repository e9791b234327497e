#include "moelab/core/csv.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "moelab/core/error.hpp"
#include "moelab/core/interrupt.hpp"

namespace moelab {

void CsvTable::add_row(std::vector<CsvCell> row) {
  MOELAB_EXPECT(row.size() == columns.size(), "CSV row length differs from the header");
  rows.push_back(std::move(row));
}

std::string format_cell(const CsvCell& cell) {
  if (const auto* d = std::get_if<double>(&cell)) return fmt::format("{}", *d);
  if (const auto* i = std::get_if<std::int64_t>(&cell)) return fmt::format("{}", *i);
  const auto& s = std::get<std::string>(cell);
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

std::string CsvTable::to_string() const {
  std::string out;
  for (const auto& [k, v] : metadata) out += fmt::format("# {}: {}\n", k, v);
  for (std::size_t j = 0; j < columns.size(); ++j) out += (j ? "," : "") + columns[j];
  out += '\n';
  for (const auto& row : rows) {
    for (std::size_t j = 0; j < row.size(); ++j) {
      if (j) out += ',';
      out += format_cell(row[j]);
    }
    out += '\n';
  }
  return out;
}

namespace {
std::string temp_prefix(const std::filesystem::path& target) { return "." + target.filename().string() + ".tmp."; }
}  // namespace

int remove_stale_temporaries(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  if (target.filename().empty()) return 0;
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const std::string prefix = temp_prefix(target);
  std::error_code ec;
  int removed = 0;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string rest = name.substr(prefix.size());  // "<pid>.XXXXXX" or (older) "XXXXXX"
    bool stale = false;
    const auto dot = rest.find('.');
    if (dot != std::string::npos && dot > 0 && rest.size() == dot + 7 &&
        rest.find_first_not_of("0123456789") == dot) {
      const long pid = std::strtol(rest.substr(0, dot).c_str(), nullptr, 10);
      stale = pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
    } else if (rest.size() == 6 && rest.find('.') == std::string::npos) {
      std::error_code tec;
      const auto age = fs::file_time_type::clock::now() - fs::last_write_time(it->path(), tec);
      stale = !tec && age > std::chrono::minutes(10);
    }
    std::error_code rec;
    if (stale && it->is_regular_file(rec) && fs::remove(it->path(), rec)) ++removed;
  }
  return removed;
}

std::string output_path_problem(const std::string& path) {
  namespace fs = std::filesystem;
  if (path.empty()) return "must be a file path, got ''";
  const fs::path target(path);
  std::error_code ec;
  const auto st = fs::status(target, ec);
  if (fs::is_directory(st)) return fmt::format("'{}' is a directory; give a file path", path);
  if (fs::exists(st) && !fs::is_regular_file(st))
    return fmt::format("'{}' exists and is not a regular file (a device, socket or fifo is never replaced)", path);
  if (target.filename().empty() || target.filename() == "." || target.filename() == "..")
    return fmt::format("'{}' names a directory; give a file path", path);
  // The nearest existing ancestor must be a writable directory (missing ones are created on write).
  fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  while (!dir.empty() && !fs::exists(dir, ec)) dir = dir.has_parent_path() && dir.parent_path() != dir ? dir.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec)) return fmt::format("'{}' is not a directory, so '{}' cannot be created", dir.string(), path);
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    return fmt::format("directory '{}' is not writable: {}", dir.string(), std::strerror(errno));
  remove_stale_temporaries(path);
  return "";
}

void write_file_atomic(const std::string& path, const std::string& content) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::error_code ec;
  fs::create_directories(dir, ec);
  remove_stale_temporaries(path);
  std::string tmpl = (dir / fmt::format("{}{}.XXXXXX", temp_prefix(target), ::getpid())).string();
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) throw RuntimeFailure(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
  TempFileGuard guard(tmpl);  // removed on error or on an interrupt before the rename
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t w = ::write(fd, content.data() + done, content.size() - done);
    if (w < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      ::close(fd);
      throw RuntimeFailure(fmt::format("cannot write '{}': {}", path, std::strerror(e)));
    }
    done += static_cast<std::size_t>(w);
  }
  ::fchmod(fd, 0644);
  if (::fsync(fd) != 0 || ::close(fd) != 0)
    throw RuntimeFailure(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
  // A signal from here on: the handler has removed (or will remove) the temporary, so the rename
  // either fails (reported as the interrupt it is) or lands the complete file.
  check_interrupted();
  if (std::rename(tmpl.c_str(), path.c_str()) != 0) {
    const int e = errno;
    check_interrupted();
    throw RuntimeFailure(fmt::format("cannot rename onto '{}': {}", path, std::strerror(e)));
  }
  guard.release();
}

namespace {
std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') cur += '"', ++i;
      else if (c == '"') quoted = false;
      else cur += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}
}  // namespace

CsvTable parse_csv(const std::string& text) {
  CsvTable t;
  std::istringstream in(text);
  std::string line;
  bool header = false;
  while (std::getline(in, line)) {
    if (line.rfind("# ", 0) == 0) {
      const auto colon = line.find(": ");
      if (colon != std::string::npos) t.add_metadata(line.substr(2, colon - 2), line.substr(colon + 2));
      continue;
    }
    if (line.empty()) continue;
    auto fields = split_fields(line);
    if (!header) {
      t.columns = fields;
      header = true;
      continue;
    }
    std::vector<CsvCell> row(fields.begin(), fields.end());
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace moelab
