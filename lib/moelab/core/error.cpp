#include "moelab/core/error.hpp"

#include <fmt/format.h>

namespace moelab {

namespace {
std::string format_input_error(const std::string& file, int line, const std::string& key, const std::string& reason) {
  std::string where = file.empty() ? std::string("<input>") : file;
  if (line > 0) where += fmt::format(":{}", line);
  if (!key.empty()) return fmt::format("{}: key '{}': {}", where, key, reason);
  return fmt::format("{}: {}", where, reason);
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

}  // namespace moelab
