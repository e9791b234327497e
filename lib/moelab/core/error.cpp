#include "moelab/core/error.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace moelab {

std::string printable(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned char c = s[i];
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c), ++i;
      continue;
    }
    // Length of a well-formed UTF-8 sequence starting here (RFC 3629: no overlongs, no surrogates).
    std::size_t len = 0;
    if (c >= 0xc2 && c <= 0xdf) len = 2;
    else if (c >= 0xe0 && c <= 0xef) len = 3;
    else if (c >= 0xf0 && c <= 0xf4) len = 4;
    bool ok = len > 0 && i + len <= n;
    for (std::size_t j = 1; ok && j < len; ++j) ok = (s[i + j] & 0xc0) == 0x80;
    if (ok && len == 3) ok = !(c == 0xe0 && s[i + 1] < 0xa0) && !(c == 0xed && s[i + 1] >= 0xa0);
    if (ok && len == 4) ok = !(c == 0xf0 && s[i + 1] < 0x90) && !(c == 0xf4 && s[i + 1] >= 0x90);
    if (ok) {
      out.append(text, i, len), i += len;
    } else {
      out += fmt::format("\\x{:02x}", c), ++i;
    }
  }
  return out;
}

namespace {
std::string format_input_error(const std::string& file, int line, const std::string& key, const std::string& reason) {
  // Every part may come from the input (a path, a key, a value read from a file): printable only.
  std::string where = file.empty() ? std::string("<input>") : printable(file);
  if (line > 0) where += fmt::format(":{}", line);
  if (!key.empty()) return fmt::format("{}: key '{}': {}", where, printable(key), printable(reason));
  return fmt::format("{}: {}", where, printable(reason));
}
}  // namespace

InputError::InputError(std::string file, int line, std::string key, std::string reason)
    : std::runtime_error(format_input_error(file, line, key, reason)),
      file_(std::move(file)),
      key_(std::move(key)),
      reason_(std::move(reason)),
      line_(line) {}

void expectation_failed(const char* expr, const char* msg, const char* file, int line) {
  throw std::logic_error(fmt::format("moelab internal check failed: {} ({}) at {}:{}", msg, expr, file, line));
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0u : 1u)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string closest_name(const std::string& name, const std::vector<std::string>& candidates, std::size_t max_distance) {
  std::string best;
  std::size_t best_distance = max_distance + 1;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(name, c);
    if (d < best_distance) best_distance = d, best = c;
  }
  return best;
}

}  // namespace moelab
