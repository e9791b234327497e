// Host-side glue between the CPU sequence classifier (moe/transformer.hpp) and the executor runner
// of its training step (transformer_driver.hpp): the plain BlockDims of a shape, and the model's
// three parameter vectors packed into the runner's one flat vector and back. Not for nvcc (Eigen).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "moelab/moe/detail/moe_layer_host.hpp"
#include "moelab/moe/detail/transformer_hd.hpp"
#include "moelab/moe/transformer.hpp"

namespace moelab::moe {

/// The runner's dimensions and offsets for `model`'s shape. The FFN goes through layer_dims: a gate
/// other than the softmax over the selected logits, or adaptive routing, is refused there
/// (std::invalid_argument naming the gate and --backend cpu).
template <class S>
hd::BlockDims block_dims(const SequenceClassifier<S>& model) {
  const BlockShape& s = model.shape().block;
  const TransformerBlock<S>& b = model.block();
  hd::BlockDims B;
  B.d = s.d, B.H = s.heads, B.dh = s.d_head;
  B.kind = b.dims(1, 1).kind;
  B.causal = s.causal, B.rms_eps = s.rms_eps;
  B.layernorm = s.norm == BlockNorm::layernorm, B.ln_eps = s.ln_eps;
  B.ffn = layer_dims(b.ffn().shape());
  B.out_heads = model.shape().out_heads, B.classes = model.shape().classes;
  B.wq = b.wq_offset(), B.wk = b.wk_offset(), B.wv = b.wv_offset(), B.wo = b.wo_offset();
  B.norm1 = B.layernorm ? b.norm_offset(0) : -1;
  B.norm2 = B.layernorm ? b.norm_offset(1) : -1;
  B.block_size = b.param_size();
  B.ffn_offset = B.block_size;
  B.readout_offset = B.ffn_offset + B.ffn.total;
  B.total = B.readout_offset + static_cast<std::int64_t>(B.C()) * (B.d + 1);
  if (static_cast<std::int64_t>(model.readout().size()) != B.total - B.readout_offset)
    throw std::logic_error("block_dims: read-out size");
  return B;
}

/// [block params | FFN params | read-out] of `model` (BlockDims's layout).
template <class S>
std::vector<S> pack_sequence_params(const SequenceClassifier<S>& model) {
  std::vector<S> out;
  const auto append = [&](const typename SequenceClassifier<S>::Vec& v) { out.insert(out.end(), v.data(), v.data() + v.size()); };
  append(model.block().params());
  append(model.block().ffn().params());
  append(model.readout());
  return out;
}

/// The inverse of pack_sequence_params (sizes from the model).
template <class S>
void unpack_sequence_params(const S* flat, SequenceClassifier<S>& model) {
  auto take = [&](typename SequenceClassifier<S>::Vec& v) {
    for (Eigen::Index i = 0; i < v.size(); ++i) v[i] = flat[i];
    flat += v.size();
  };
  take(model.block().params());
  take(model.block().ffn().params());
  take(model.readout());
}

}  // namespace moelab::moe
