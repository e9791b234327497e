// Resizing reused (per-thread) Eigen storage so that a failed allocation leaves it valid.
#pragma once

#include <Eigen/Core>

namespace moelab {

/// Resizes `m` to rows x cols, keeping its storage when the size is unchanged. Eigen's own resize
/// frees the old block, then allocates the new one, and keeps the freed pointer when that allocation
/// throws std::bad_alloc: the next resize or the destructor (at thread exit, for a thread_local) then
/// frees it a second time. Emptying first makes the pointer null before the allocation, so after a
/// bad_alloc `m` is a valid 0 x 0 matrix.
template <class Plain>
void resize_reused(Plain& m, Eigen::Index rows, Eigen::Index cols) {
  if (m.rows() == rows && m.cols() == cols) return;
  if (m.size() != rows * cols) m.resize(0, 0);
  m.resize(rows, cols);
}

/// The vector form of resize_reused.
template <class Plain>
void resize_reused(Plain& v, Eigen::Index size) {
  if (v.size() == size) return;
  v.resize(0);
  v.resize(size);
}

}  // namespace moelab
