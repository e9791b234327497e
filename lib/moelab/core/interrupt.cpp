#include "moelab/core/interrupt.hpp"
#include "moelab/core/interrupt_status.hpp"

#include <array>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>

#include <unistd.h>

#include "moelab/core/error.hpp"

namespace moelab {

namespace {
constexpr int kSlots = 64;
// Fixed-size table readable from the signal handler without allocation.
std::array<std::atomic<const char*>, kSlots> g_temp_files{};
std::array<char[4096], kSlots> g_temp_names{};
std::mutex g_slot_mutex;
volatile std::sig_atomic_t g_interrupted = 0;  // the signal number, 0 before any
std::atomic<bool> g_installed{false};

extern "C" void on_signal(int sig) {
  // SIGTERM (a scheduler's time limit, kill, mpirun forwarding an interrupt) is handled exactly
  // like SIGINT: the run stops at its next poll, says so, keeps its journal and exits 128 + sig.
  if (g_interrupted == 0) g_interrupted = sig;
  for (auto& slot : g_temp_files) {
    const char* p = slot.load();
    if (p) ::unlink(p);
  }
  // A second SIGINT or SIGTERM ends the process at once (the default action).
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}
}  // namespace

void install_interrupt_handlers() {
  if (g_installed.exchange(true)) return;
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
}

bool interrupted() { return g_interrupted != 0; }

int interrupt_signal() { return g_interrupted; }

void mark_interrupted(int sig) {
  if (g_interrupted == 0 && (sig == SIGINT || sig == SIGTERM)) g_interrupted = sig;
}

int interrupt_exit_code() { return 128 + (g_interrupted != 0 ? static_cast<int>(g_interrupted) : SIGINT); }

std::string interrupt_message() {
  const char* name = g_interrupted == SIGTERM ? "SIGTERM" : "SIGINT";
  return std::string("interrupted by ") + name + "; nothing was written";
}

void check_interrupted() {
  if (interrupted()) throw Interrupted(interrupt_message());
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
