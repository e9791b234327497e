// Host-side glue between the CPU trainer's types (moe_model.hpp, adamw.hpp) and the shared MoE layer
// pieces (moe_layer_hd.hpp): the plain LayerDims of a shape, and one AdamW step's scalars computed
// exactly as moe::adamw_update computes them. Not for nvcc (Eigen).
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "moelab/moe/adamw.hpp"
#include "moelab/moe/detail/ensemble_hd.hpp"
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

/// Where each parameter of ParamLayout's order goes in the packed (all-experts) layout of
/// ensemble_hd.hpp: packed[to[i]] = theta[i]. MLP experts only (the packed layout's domain).
inline std::vector<std::int64_t> packed_positions(const hd::LayerDims& L) {
  const hd::PackedDims P = hd::packed_dims(L);
  std::vector<std::int64_t> to(static_cast<std::size_t>(L.total));
  const std::int64_t mw = P.mw();
  auto at = [&](std::int64_t i) -> std::int64_t& { return to[static_cast<std::size_t>(i)]; };
  if (L.has_router) {
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(L.m) * L.d; ++i) at(L.router_w + i) = P.router_w + i;
    if (L.router_bias)
      for (int j = 0; j < L.m; ++j) at(L.router_b + j) = P.router_b + j;
  }
  for (int j = 0; j < L.m; ++j) {
    const std::int64_t e = L.expert(j);
    for (int c = 0; c < L.d; ++c)  // W1_j (w x d) is rows j w .. j w + w - 1 of W1 ((m w) x d)
      for (int a = 0; a < L.w; ++a) at(e + L.w1 + static_cast<std::int64_t>(c) * L.w + a) = P.w1 + static_cast<std::int64_t>(c) * mw + j * L.w + a;
    if (L.expert_bias)
      for (int a = 0; a < L.w; ++a) at(e + L.b1 + a) = P.b1 + static_cast<std::int64_t>(j) * L.w + a;
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(L.d_out) * L.w; ++i)  // W2_j: columns j w .. of W2
      at(e + L.w2 + i) = P.w2 + static_cast<std::int64_t>(j) * L.d_out * L.w + i;
    if (L.expert_bias)
      for (int r = 0; r < L.d_out; ++r) at(e + L.b2 + r) = P.b2 + static_cast<std::int64_t>(j) * L.d_out + r;
  }
  return to;
}

/// theta (ParamLayout order) -> packed, and back.
template <class S>
std::vector<S> pack_params(const hd::LayerDims& L, const S* theta) {
  const auto to = packed_positions(L);
  std::vector<S> out(to.size());
  for (std::size_t i = 0; i < to.size(); ++i) out[static_cast<std::size_t>(to[i])] = theta[i];
  return out;
}
template <class S>
void unpack_params(const hd::LayerDims& L, const S* packed, S* theta) {
  const auto to = packed_positions(L);
  for (std::size_t i = 0; i < to.size(); ++i) theta[i] = packed[static_cast<std::size_t>(to[i])];
}

}  // namespace moelab::moe
