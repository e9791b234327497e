// The sequence trainer's factory (sequence_trainer.hpp) over every backend present: the CPU trainer is
// train_step / sequence_loss of transformer.hpp (the same bytes: losses, logits, parameters), the
// CUDA trainer exists only where the CUDA backend can run, and elsewhere the factory refuses naming
// --backend.
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "device_harness.hpp"
#include "moelab/moe/sequence_trainer.hpp"
#include "moelab/moe/teacher_student.hpp"
#include "moelab/moe/transformer.hpp"

using namespace moelab;
using namespace moelab::moe;

namespace {

SequenceClassifier<float> tiny_model() {
  SequenceShape sh;
  sh.block.d = 6, sh.block.heads = 2, sh.block.d_head = 3, sh.block.norm = BlockNorm::layernorm;
  sh.block.ffn.m = 4, sh.block.ffn.k = 2, sh.block.ffn.w = 5, sh.block.ffn.expert_bias = true;
  sh.out_heads = 2, sh.classes = 3;
  SequenceClassifier<float> model(sh);
  init_pytorch(model, 3);
  return model;
}

SequenceBatch<float> tiny_batch(std::int64_t step) {
  SequenceBatch<float> b;
  b.T = 4;
  b.X = gaussian_inputs<float>(6, 4 * 9, 8, StreamTag::moe_train_data, static_cast<std::uint64_t>(step));
  for (int i = 0; i < 9 * 2; ++i) b.labels.push_back(static_cast<int>((i * 7 + step) % 3));
  return b;
}

}  // namespace

TEST_CASE("the CPU sequence trainer is train_step and sequence_loss, byte for byte", "[moe][backend][transformer]") {
  auto model = tiny_model();
  const auto trainer = make_sequence_trainer<float>(Backend::cpu, model);
  REQUIRE(trainer->backend() == Backend::cpu);
  AdamWConfig cfg;
  cfg.lr = 1e-2, cfg.total_steps = 5;
  SequenceTrainState<float> st;
  std::vector<double> ref;
  for (int s = 0; s < 5; ++s) {
    const auto b = tiny_batch(s);
    trainer->train_step(b, cfg);
    ref.push_back(train_step(model, b, cfg, st));
  }
  CHECK(trainer->steps() == 5);
  CHECK(trainer->losses() == ref);
  const auto held = tiny_batch(99);
  SequenceTrainer<float>::Mat logits;
  CHECK(trainer->evaluate(held, logits) == sequence_loss<float>(model, held, st, nullptr));
  CHECK(logits == st.logits);
  auto out = tiny_model();
  trainer->parameters(out);
  CHECK(out.block().params() == model.block().params());
  CHECK(out.block().ffn().params() == model.block().ffn().params());
  CHECK(out.readout() == model.readout());
  CHECK(out.readout() != tiny_model().readout());  // control: the steps moved the parameters
}

TEST_CASE("make_sequence_trainer refuses the cuda backend where CUDA cannot run, naming --backend", "[moe][backend][transformer]") {
  if (moelab::test::backend_present(Backend::cuda)) {
    CHECK(make_sequence_trainer<float>(Backend::cuda, tiny_model())->backend() == Backend::cuda);
    return;
  }
  CHECK_THROWS_WITH(make_sequence_trainer<float>(Backend::cuda, tiny_model()),
                    Catch::Matchers::Contains("make_sequence_trainer(cuda)") && Catch::Matchers::Contains("--backend cpu"));
}
