#include "moelab/moe/teacher_student.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <numeric>
#include <sstream>

#include <fmt/format.h>

#include "moelab/core/csv.hpp"
#include "moelab/core/distributed.hpp"
#include "moelab/core/distributions.hpp"
#include "moelab/core/error.hpp"
#include "moelab/core/parallel.hpp"

namespace moelab::moe {

namespace {

constexpr char kMagic[8] = {'M', 'O', 'E', 'L', 'A', 'B', 'C', 'K'};
constexpr std::uint32_t kVersion = 1;


}  // namespace

std::string TrainConfig::canonical(int scalar_bytes) const {
  return fmt::format("teacher={};student={};seeds={},{},{};steps={};batch={};train={};test={};lr={:.17g};b1={:.17g};b2={:.17g};"
                     "eps={:.17g};wd={:.17g};final={:.17g};scalar={}",
                     teacher.describe(), student.describe(), teacher_seed, student_seed, data_seed, steps, batch, train_size, test_size,
                     opt.lr, opt.beta1, opt.beta2, opt.eps, opt.weight_decay, opt.final_lr_fraction, scalar_bytes);
}

template <class S>
typename MoeModel<S>::Mat gaussian_inputs(int d, std::int64_t n, std::uint64_t seed, StreamTag tag, std::uint64_t trial) {
  const RandomStream rs(seed, tag, trial);
  typename MoeModel<S>::Mat X(d, n);
  // Draw j is the bulk normal j of the stream (fill_normal_cpu: the same Philox blocks and
  // Box-Muller map as RandomStream::normal(j), evaluated vectorised, within a few ulp of it; its
  // value does not depend on the window it is requested in), so chunks of 2^15 draws may run on any
  // thread with the same bytes; one chunk (serial) below 2^16 draws, where a parallel region costs
  // more than it saves. The libm Box-Muller of RandomStream::fill_normal (~19 ns a draw) was ~9 ms
  // of the Fig. 2 bench's 43 ms step on one thread (bench/RESULTS.md, moe).
  const std::size_t total = static_cast<std::size_t>(d) * static_cast<std::size_t>(n);
  constexpr std::size_t kChunk = std::size_t{1} << 15;
  const std::size_t chunks = total < 2 * kChunk ? 1 : (total + kChunk - 1) / kChunk;
  const std::size_t per = chunks == 1 ? total : kChunk;
  auto fill = [&](std::size_t c) {
    const std::size_t a = c * per, b = std::min(total, a + per);
    std::vector<double> buf(b - a);
    fill_normal_cpu(rs, a, b - a, buf.data());
    for (std::size_t i = a; i < b; ++i) X.data()[i] = static_cast<S>(buf[i - a]);
  };
  if (chunks > 1 && num_threads() > 1)
    parallel_for(chunks, fill);
  else
    for (std::size_t c = 0; c < chunks; ++c) fill(c);
  return X;
}

template <class S>
std::string TeacherData<S>::data_key(const TrainConfig& cfg) {
  return fmt::format("teacher={};teacher_seed={};data_seed={};batch={};train={};test={};scalar={}", cfg.teacher.describe(),
                     cfg.teacher_seed, cfg.data_seed, cfg.batch, cfg.train_size, cfg.test_size, sizeof(S));
}

template <class S>
TeacherData<S>::TeacherData(const TrainConfig& cfg) : key_(data_key(cfg)), cfg_(cfg), teacher_(cfg.teacher) {
  MOELAB_EXPECT(cfg_.teacher.weighting != Weighting::oracle, "TeacherStudent: oracle routing needs labels; the teacher-student setting has none");
  MOELAB_EXPECT(cfg_.batch >= 1 && cfg_.test_size >= 1 && cfg_.train_size >= 0, "TeacherStudent: sizes");
  init_pytorch(teacher_, cfg_.teacher_seed);
  test_x_ = gaussian_inputs<S>(cfg_.teacher.d, cfg_.test_size, cfg_.data_seed, StreamTag::moe_test_data, 0);
  test_t_.resize(cfg_.teacher.d_out, cfg_.test_size);
  double energy = 0.0;
  for (std::int64_t i0 = 0; i0 < cfg_.test_size; i0 += kEvalChunk) {
    const std::int64_t n = std::min(kEvalChunk, cfg_.test_size - i0);
    test_t_.middleCols(i0, n) = evaluate(teacher_, Mat(test_x_.middleCols(i0, n)));
  }
  for (std::int64_t i = 0; i < cfg_.test_size; ++i) {
    double col = 0.0;
    for (int r = 0; r < cfg_.teacher.d_out; ++r) col += static_cast<double>(test_t_(r, i)) * static_cast<double>(test_t_(r, i));
    energy += col;
  }
  teacher_energy_ = energy / static_cast<double>(cfg_.test_size);
  if (cfg_.train_size > 0) {
    train_x_ = gaussian_inputs<S>(cfg_.teacher.d, cfg_.train_size, cfg_.data_seed, StreamTag::moe_train_data, 0);
    train_t_.resize(cfg_.teacher.d_out, cfg_.train_size);
    for (std::int64_t i0 = 0; i0 < cfg_.train_size; i0 += kEvalChunk) {
      const std::int64_t n = std::min(kEvalChunk, cfg_.train_size - i0);
      train_t_.middleCols(i0, n) = evaluate(teacher_, Mat(train_x_.middleCols(i0, n)));
    }
  }
}

template <class S>
double TeacherData<S>::bytes() const {
  const double s = sizeof(S);
  return s * static_cast<double>(teacher_.params().size() + test_x_.size() + test_t_.size() + train_x_.size() + train_t_.size()) +
         8.0 * static_cast<double>(order_.capacity());
}

std::vector<std::int64_t> epoch_order(std::uint64_t data_seed, std::int64_t epoch, std::int64_t train_size) {
  std::vector<std::int64_t> order(static_cast<std::size_t>(train_size));
  std::iota(order.begin(), order.end(), std::int64_t{0});
  const RandomStream rs(data_seed, StreamTag::moe_shuffle, static_cast<std::uint64_t>(epoch));
  for (std::int64_t i = train_size - 1; i > 0; --i) {
    const auto j = static_cast<std::int64_t>(rs.uniform(static_cast<std::uint64_t>(i)) * static_cast<double>(i + 1));
    std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(std::min(j, i))]);
  }
  return order;
}

template <class S>
void TeacherData<S>::batch_for_step(std::int64_t t, Mat& X, Mat& T) const {
  if (cfg_.train_size == 0) {
    X = gaussian_inputs<S>(cfg_.teacher.d, cfg_.batch, cfg_.data_seed, StreamTag::moe_train_data, static_cast<std::uint64_t>(t));
    forward(teacher_, X, nullptr, cache_, T);  // evaluate()'s bytes, in the kept workspace
    return;
  }
  // Epoch e visits the training set in the order of a Fisher-Yates shuffle drawn from (moe_shuffle, e);
  // a last partial batch closes each epoch.
  const std::int64_t per_epoch = (cfg_.train_size + cfg_.batch - 1) / cfg_.batch;
  const std::int64_t epoch = t / per_epoch, b = t % per_epoch;
  if (order_epoch_ != epoch) {
    order_ = epoch_order(cfg_.data_seed, epoch, cfg_.train_size);
    order_epoch_ = epoch;
  }
  const auto& order = order_;
  const std::int64_t i0 = b * cfg_.batch, n = std::min(cfg_.batch, cfg_.train_size - i0);
  X.resize(cfg_.teacher.d, n);
  T.resize(cfg_.teacher.d_out, n);
  for (std::int64_t p = 0; p < n; ++p) {
    X.col(p) = train_x_.col(order[static_cast<std::size_t>(i0 + p)]);
    T.col(p) = train_t_.col(order[static_cast<std::size_t>(i0 + p)]);
  }
}

template <class S>
TeacherStudent<S>::TeacherStudent(TrainConfig cfg) : TeacherStudent(cfg, std::make_shared<const TeacherData<S>>(cfg)) {}

template <class S>
TeacherStudent<S>::TeacherStudent(TrainConfig cfg, std::shared_ptr<const TeacherData<S>> data)
    : cfg_(std::move(cfg)), data_(std::move(data)), student_(cfg_.student) {
  MOELAB_EXPECT(data_ != nullptr && data_->key() == TeacherData<S>::data_key(cfg_), "TeacherStudent: data of another configuration");
  MOELAB_EXPECT(cfg_.teacher.d == cfg_.student.d && cfg_.teacher.d_out == cfg_.student.d_out,
                "TeacherStudent: teacher and student need the same input and output dimensions");
  MOELAB_EXPECT(cfg_.teacher.weighting != Weighting::oracle && cfg_.student.weighting != Weighting::oracle,
                "TeacherStudent: oracle routing needs labels; the teacher-student setting has none");
  MOELAB_EXPECT(cfg_.steps >= 1 && cfg_.batch >= 1 && cfg_.test_size >= 1 && cfg_.train_size >= 0, "TeacherStudent: sizes");
  cfg_.opt.total_steps = cfg_.steps;
  init_pytorch(student_, cfg_.student_seed);
  opt_.reset(student_.params().size());
}

template <class S>
void TeacherStudent<S>::step_on(const Mat& X, const Mat& T) {
  MOELAB_EXPECT(opt_.step < cfg_.steps, "TeacherStudent: step past the configured steps");
  forward(student_, X, nullptr, cache_, Y_);
  losses_.push_back(mse_loss<S>(Y_, T, &dY_));
  backward(student_, cache_, dY_, grad_);
  adamw_update(student_.params(), grad_, opt_, cfg_.opt);
}

template <class S>
void TeacherStudent<S>::train_until(std::int64_t last) {
  last = std::min(last, cfg_.steps);
  Mat X, T;
  while (opt_.step < last) {
    data_->batch_for_step(opt_.step, X, T);
    step_on(X, T);
  }
}

template <class S>
double TeacherStudent<S>::test_mse() const {
  double sum = 0.0;
  for (std::int64_t i0 = 0; i0 < cfg_.test_size; i0 += kEvalChunk) {
    const std::int64_t n = std::min(kEvalChunk, cfg_.test_size - i0);
    const Mat Y = evaluate(student_, Mat(data_->test_x().middleCols(i0, n)));
    sum += mse_loss<S>(Y, Mat(data_->test_t().middleCols(i0, n)), nullptr) * static_cast<double>(n);
  }
  return sum / static_cast<double>(cfg_.test_size);
}

template <class S>
double TeacherStudent<S>::test_nmse() const {
  // mse_loss is per entry: times d_out it is E||f - t||^2, divided by E||t||^2.
  return test_mse() * cfg_.teacher.d_out / data_->teacher_energy();
}

template <class S>
void TeacherStudent<S>::save(const std::string& path) const {
  std::string out;
  out.append(kMagic, sizeof(kMagic));
  append_bytes(out, kVersion);
  append_bytes(out, static_cast<std::uint32_t>(sizeof(S)));
  append_bytes(out, fnv1a64(cfg_.canonical(static_cast<int>(sizeof(S)))));
  append_bytes(out, opt_.step);
  const auto P = static_cast<std::int64_t>(student_.params().size());
  append_bytes(out, P);
  for (const Vec* v : {&student_.params(), &opt_.m, &opt_.v}) out.append(reinterpret_cast<const char*>(v->data()), sizeof(S) * static_cast<std::size_t>(P));
  append_bytes(out, static_cast<std::int64_t>(losses_.size()));
  out.append(reinterpret_cast<const char*>(losses_.data()), sizeof(double) * losses_.size());
  write_file_atomic(path, out, /*even_if_interrupted=*/true);  // a checkpoint: kept for --resume
}

template <class S>
void TeacherStudent<S>::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "checkpoint", "cannot open the file");
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::size_t pos = 0;
  auto fail = [&](const std::string& key, const std::string& why) { throw InputError(path, 0, key, why); };
  auto get = [&](auto& v, const char* key) {
    if (pos + sizeof(v) > data.size()) fail(key, "file ends early (truncated checkpoint)");
    std::memcpy(&v, data.data() + pos, sizeof(v));
    pos += sizeof(v);
  };
  if (data.size() < sizeof(kMagic) || std::memcmp(data.data(), kMagic, sizeof(kMagic)) != 0) fail("magic", "not a moelab checkpoint");
  pos = sizeof(kMagic);
  std::uint32_t version = 0, scalar = 0;
  std::uint64_t fingerprint = 0;
  std::int64_t step = 0, P = 0, L = 0;
  get(version, "version");
  if (version != kVersion) fail("version", fmt::format("version {} (this build reads {})", version, kVersion));
  get(scalar, "scalar");
  if (scalar != sizeof(S)) fail("scalar", fmt::format("written with {}-byte scalars, resumed with {}-byte", scalar, sizeof(S)));
  get(fingerprint, "fingerprint");
  if (fingerprint != fnv1a64(cfg_.canonical(static_cast<int>(sizeof(S)))))
    fail("fingerprint", "written by a run of another configuration (shapes, seeds, sizes or optimizer differ)");
  get(step, "step");
  get(P, "parameters");
  if (P != student_.params().size()) fail("parameters", fmt::format("{} parameters, the student has {}", P, student_.params().size()));
  if (step < 0 || step > cfg_.steps) fail("step", fmt::format("step {} outside [0, {}]", step, cfg_.steps));
  const std::size_t bytes = sizeof(S) * static_cast<std::size_t>(P);
  if (pos + 3 * bytes > data.size()) fail("parameters", "file ends early (truncated checkpoint)");
  Vec theta(P), m(P), v(P);
  for (Vec* x : {&theta, &m, &v}) {
    std::memcpy(x->data(), data.data() + pos, bytes);
    pos += bytes;
  }
  get(L, "losses");
  if (L != step || pos + sizeof(double) * static_cast<std::size_t>(L) != data.size()) fail("losses", "loss count does not match the step");
  std::vector<double> losses(static_cast<std::size_t>(L));
  std::memcpy(losses.data(), data.data() + pos, sizeof(double) * losses.size());
  student_.params() = theta;
  opt_.m = m;
  opt_.v = v;
  opt_.step = step;
  losses_ = std::move(losses);
}

template class TeacherData<float>;
template class TeacherData<double>;
template class TeacherStudent<float>;
template class TeacherStudent<double>;
template MoeModel<float>::Mat gaussian_inputs<float>(int, std::int64_t, std::uint64_t, StreamTag, std::uint64_t);
template MoeModel<double>::Mat gaussian_inputs<double>(int, std::int64_t, std::uint64_t, StreamTag, std::uint64_t);

}  // namespace moelab::moe
