#include "moelab/core/csv.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
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

namespace {
/// A metadata key or value as written on its `# key: value` line: control characters escaped (\n,
/// \r, \t, \xNN), so a value never spans lines (a newline in a title or a path would start an
/// uncommented line above the header, which a reader skipping '#' lines takes for the header).
std::string metadata_text(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7f) out += fmt::format("\\x{:02x}", c);
    else out += ch;
  }
  return out;
}
}  // namespace

std::string CsvTable::to_string() const {
  std::string out;
  for (const auto& [k, v] : metadata) out += fmt::format("# {}: {}\n", metadata_text(k), metadata_text(v));
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
// The longest name derived from an output's: its temporary '.' + name + ".tmp." + pid (at most 7
// digits: pid_max <= 2^22) + ".XXXXXX", 20 bytes more (the journal, name + ".journal", is 8 more).
constexpr std::size_t kDerivedNameExtra = 1 + 5 + 7 + 7;
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
  // Write-protected: refused, as cp or a shell redirect would (root included: the mode says the
  // file is not to be replaced).
  if (fs::is_regular_file(st) && (::access(path.c_str(), W_OK) != 0 || (fs::status(target, ec).permissions() &
                                   (fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write)) == fs::perms::none))
    return fmt::format("'{}' is write-protected; make it writable or remove it first", path);
  // Every name derived from it must fit the file system's limits (checked now, not after the work):
  // the temporary `.<name>.tmp.<pid>.XXXXXX` and the journal `<name>.journal`.
  const std::string name = target.filename().string();
  const std::size_t longest = name.size() + kDerivedNameExtra;
  const fs::path dir0 = target.has_parent_path() ? target.parent_path() : fs::path(".");
  long name_max = 255;
  for (fs::path d = dir0; !d.empty(); d = d.has_parent_path() && d.parent_path() != d ? d.parent_path() : fs::path()) {
    if (fs::exists(d, ec)) {
      if (const long v = ::pathconf(d.c_str(), _PC_NAME_MAX); v > 0) name_max = v;
      break;
    }
  }
  if (longest > static_cast<std::size_t>(name_max))
    return fmt::format("the file name is {} bytes; with the temporary file and the journal moelab writes beside it "
                       "(up to {} bytes more) it must be at most {} bytes on this file system", name.size(),
                       longest - name.size(), static_cast<std::size_t>(name_max) - (longest - name.size()));
  const std::string full = fs::absolute(target, ec).string();
  if (full.size() + (longest - name.size()) >= static_cast<std::size_t>(PATH_MAX))
    return fmt::format("the path is {} bytes (absolute); with the names moelab derives from it it must stay under {} "
                       "bytes (PATH_MAX)", full.size(), PATH_MAX - (longest - name.size()));
  for (auto it = target.begin(); it != target.end(); ++it)
    if (it->string().size() > static_cast<std::size_t>(name_max))
      return fmt::format("the directory name '{}...' is longer than {} bytes", it->string().substr(0, 40), name_max);
  // The nearest existing ancestor must be a writable directory (missing ones are created on write).
  fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  while (!dir.empty() && !fs::exists(dir, ec)) dir = dir.has_parent_path() && dir.parent_path() != dir ? dir.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec)) return fmt::format("'{}' is not a directory, so '{}' cannot be created", dir.string(), path);
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    return fmt::format("directory '{}' is not writable: {}", dir.string(), std::strerror(errno));
  {
    // access() says yes to root everywhere, /proc and read-only mounts included: create (and remove)
    // a probe file to know that the output can really be written there.
    std::string probe = (dir / fmt::format(".moelab-probe.{}.XXXXXX", ::getpid())).string();
    const int fd = ::mkstemp(probe.data());
    if (fd < 0)
      return fmt::format("no file can be created in directory '{}': {}", dir.string(), std::strerror(errno));
    ::close(fd);
    ::unlink(probe.c_str());
  }
  remove_stale_temporaries(path);
  return "";
}

void write_file_atomic(const std::string& path, const std::string& content, bool even_if_interrupted) {
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
  // The file keeps the mode of the one it replaces (a 0600 output stays private), else 0644.
  struct stat old_st {};
  ::fchmod(fd, ::stat(path.c_str(), &old_st) == 0 && S_ISREG(old_st.st_mode) ? (old_st.st_mode & 07777) : 0644);
  if (::fsync(fd) != 0 || ::close(fd) != 0)
    throw RuntimeFailure(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
  // A signal from here on: the handler has removed (or will remove) the temporary, so the rename
  // either fails (reported as the interrupt it is) or lands the complete file.
  if (!even_if_interrupted) check_interrupted();
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
