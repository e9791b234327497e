#include "moelab/core/progress.hpp"

#include <cstdio>

#include <unistd.h>

#include <fmt/format.h>

namespace moelab {

namespace {
int g_enabled = -1;  // -1: decide by isatty

std::string format_seconds(double s) {
  if (!(s >= 0) || s > 1e7) return "--:--";
  const auto t = static_cast<long>(s + 0.5);
  if (t >= 3600) return fmt::format("{}:{:02}:{:02}", t / 3600, (t / 60) % 60, t % 60);
  return fmt::format("{:02}:{:02}", t / 60, t % 60);
}
}  // namespace

void Progress::set_enabled(bool on) { g_enabled = on ? 1 : 0; }

Progress::Progress(std::size_t total, std::string label)
    : total_(total), label_(std::move(label)), start_(std::chrono::steady_clock::now()), last_draw_(start_) {
  active_ = g_enabled == -1 ? ::isatty(STDERR_FILENO) == 1 : g_enabled == 1;
}

Progress::~Progress() { finish(); }

void Progress::advance(std::size_t units) {
  done_.fetch_add(units, std::memory_order_relaxed);
  if (!active_) return;
  const auto now = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
  if (!lock.owns_lock() || now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  draw(false);
}

void Progress::finish() {
  if (finished_) return;
  finished_ = true;
  if (!active_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  draw(true);
}

void Progress::draw(bool final_line) {
  const std::size_t done = std::min(done_.load(), total_);
  const double frac = total_ ? static_cast<double>(done) / static_cast<double>(total_) : 1.0;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double eta = frac > 0 ? elapsed * (1.0 - frac) / frac : -1.0;
  constexpr int width = 30;
  const int filled = static_cast<int>(frac * width);
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.resize(width, '.');
  const std::string line = fmt::format("\r{} [{}] {:3.0f}% {}/{} elapsed {} eta {}", label_, bar, 100.0 * frac,
                                       done, total_, format_seconds(elapsed), format_seconds(eta));
  std::fputs(line.c_str(), stderr);
  if (final_line) std::fputs("\n", stderr);
  std::fflush(stderr);
}

}  // namespace moelab
