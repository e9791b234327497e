// Host-side glue between the CPU trainer's types (moe_model.hpp, adamw.hpp) and the shared MoE layer
// pieces (moe_layer_hd.hpp): the plain LayerDims of a shape, and one AdamW step's scalars computed
// exactly as moe::adamw_update computes them. Not for nvcc (Eigen).
#pragma once

#include <cmath>
#include <cstdint>

#include "moelab/moe/adamw.hpp"
#include "moelab/moe/detail/moe_layer_hd.hpp"
#include "moelab/moe/moe_model.hpp"

namespace moelab::moe {

/// The shape and ParamLayout offsets of `s` as plain data.
inline hd::LayerDims layer_dims(const MoeShape& s) {
  s.expect_device_gate("layer_dims (the device MoE layer)");  // hd::Weights has no other gate or adaptive k
  const ParamLayout l(s);
  hd::LayerDims L;
  L.m = s.m, L.k = s.k, L.w = s.w, L.d = s.d, L.d_out = s.d_out;
  L.mlp = s.expert == ExpertKind::mlp;
  L.expert_bias = s.expert_bias;
  L.router_bias = s.router_bias && s.has_router();
  L.has_router = s.has_router();
  L.weights = s.weighting == Weighting::softmax ? hd::Weights::softmax : s.weighting == Weighting::equal ? hd::Weights::equal : hd::Weights::oracle;
  L.router_w = l.router_w, L.router_b = l.router_b, L.experts = l.experts, L.expert_size = l.expert_size;
  L.w1 = l.w1, L.b1 = l.b1, L.w2 = l.w2, L.b2 = l.b2, L.total = l.total;
  return L;
}

/// The scalars of AdamW step `step` (0-based) under cfg (adamw.cpp's adamw_update, same expressions).
template <class S>
hd::AdamWScalars<S> adamw_scalars(const AdamWConfig& cfg, std::int64_t step) {
  const double lr = cosine_lr(cfg, step);
  const double t = static_cast<double>(step + 1);
  hd::AdamWScalars<S> a;
  a.decay = static_cast<S>(1.0 - lr * cfg.weight_decay);
  a.b1 = static_cast<S>(cfg.beta1);
  a.b2 = static_cast<S>(cfg.beta2);
  a.step_size = static_cast<S>(lr / (1.0 - std::pow(cfg.beta1, t)));
  a.sqrt_bc2 = static_cast<S>(std::sqrt(1.0 - std::pow(cfg.beta2, t)));
  a.eps = static_cast<S>(cfg.eps);
  return a;
}

}  // namespace moelab::moe
