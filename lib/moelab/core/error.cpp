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
/// The longest file name or key an InputError message quotes, and the longest reason; longer ones
/// are cut with "... (N more bytes)" (the exception keeps the full strings: file(), key(), reason()).
constexpr std::size_t kMaxQuotedPath = 300, kMaxReason = 2000;

/// `text` cut to `limit` bytes (at a UTF-8 character boundary), saying how much was left out: a
/// message must stay readable when the input it quotes is 200 kB long.
std::string cut(const std::string& text, std::size_t limit) {
  if (text.size() <= limit) return text;
  std::size_t end = limit;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xc0) == 0x80) --end;
  return fmt::format("{}... ({} more bytes)", text.substr(0, end), text.size() - end);
}

std::string format_input_error(const std::string& file, int line, const std::string& key, const std::string& reason) {
  // Every part may come from the input (a path, a key, a value read from a file): printable only,
  // and cut (a path or key at 300 bytes, the reason at 2000).
  std::string where = file.empty() ? std::string("<input>") : cut(printable(file), kMaxQuotedPath);
  if (line > 0) where += fmt::format(":{}", line);
  if (!key.empty()) return fmt::format("{}: key '{}': {}", where, cut(printable(key), kMaxQuotedPath), cut(printable(reason), kMaxReason));
  return fmt::format("{}: {}", where, cut(printable(reason), kMaxReason));
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
