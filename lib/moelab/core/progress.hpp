// Progress bar with ETA on stderr, shown only when stderr is a terminal (silent in CI, pipes, files).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>

namespace moelab {

class Progress {
 public:
  /// `total` units of work; `label` is printed before the bar.
  Progress(std::size_t total, std::string label);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  /// Thread-safe: records `units` finished units and redraws at most ten times a second.
  void advance(std::size_t units = 1);
  void finish();
  /// Force-enable or disable (tests); by default enabled iff isatty(stderr).
  static void set_enabled(bool on);

 private:
  void draw(bool final_line);
  std::size_t total_;
  std::string label_;
  std::atomic<std::size_t> done_{0};
  std::chrono::steady_clock::time_point start_, last_draw_;
  std::mutex mutex_;
  bool active_;
  bool finished_ = false;
};

}  // namespace moelab
