#include "moelab/core/interrupt.hpp"

#include <array>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <mutex>

#include <unistd.h>

#include "moelab/core/error.hpp"

namespace moelab {

namespace {
constexpr int kSlots = 64;
// Fixed-size table readable from the signal handler without allocation.
std::array<std::atomic<const char*>, kSlots> g_temp_files{};
std::array<char[4096], kSlots> g_temp_names{};
std::mutex g_slot_mutex;
volatile std::sig_atomic_t g_interrupted = 0;
std::atomic<bool> g_installed{false};

extern "C" void on_signal(int sig) {
  g_interrupted = 1;
  for (auto& slot : g_temp_files) {
    const char* p = slot.load();
    if (p) ::unlink(p);
  }
  // Second signal or non-interactive use: restore default and re-raise so the exit status says why.
  std::signal(sig, SIG_DFL);
  if (sig == SIGTERM) std::raise(sig);
}
}  // namespace

void install_interrupt_handlers() {
  if (g_installed.exchange(true)) return;
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
}

bool interrupted() { return g_interrupted != 0; }

void check_interrupted() {
  if (interrupted()) throw Interrupted("interrupted by a signal; nothing was written");
}

TempFileGuard::TempFileGuard(std::string path) : slot_(-1), path_(std::move(path)) {
  std::lock_guard<std::mutex> lock(g_slot_mutex);
  for (int i = 0; i < kSlots; ++i) {
    if (g_temp_files[static_cast<std::size_t>(i)].load() == nullptr && path_.size() < 4095) {
      std::memcpy(g_temp_names[static_cast<std::size_t>(i)], path_.c_str(), path_.size() + 1);
      g_temp_files[static_cast<std::size_t>(i)].store(g_temp_names[static_cast<std::size_t>(i)]);
      slot_ = i;
      break;
    }
  }
}

TempFileGuard::~TempFileGuard() {
  if (!path_.empty()) ::unlink(path_.c_str());
  release();
}

void TempFileGuard::release() {
  if (slot_ >= 0) {
    g_temp_files[static_cast<std::size_t>(slot_)].store(nullptr);
    slot_ = -1;
  }
  path_.clear();
}

}  // namespace moelab
