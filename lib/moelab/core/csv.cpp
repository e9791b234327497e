#include "moelab/core/csv.hpp"

#include <cerrno>
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

void write_file_atomic(const std::string& path, const std::string& content) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::error_code ec;
  fs::create_directories(dir, ec);
  std::string tmpl = (dir / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
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
  if (std::rename(tmpl.c_str(), path.c_str()) != 0)
    throw RuntimeFailure(fmt::format("cannot rename onto '{}': {}", path, std::strerror(errno)));
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
