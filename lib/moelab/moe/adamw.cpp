#include "moelab/moe/adamw.hpp"

#include <cmath>
#include <type_traits>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "moelab/core/error.hpp"

namespace moelab::moe {

double cosine_lr(const AdamWConfig& cfg, std::int64_t t) {
  const double T = static_cast<double>(cfg.total_steps);
  const double x = std::min(1.0, static_cast<double>(t) / T);
  constexpr double pi = 3.14159265358979323846;
  return cfg.lr * (cfg.final_lr_fraction + (1.0 - cfg.final_lr_fraction) * 0.5 * (1.0 + std::cos(pi * x)));
}

template <class S>
void adamw_update(Eigen::Matrix<S, Eigen::Dynamic, 1>& theta, const Eigen::Matrix<S, Eigen::Dynamic, 1>& g, AdamWState<S>& st,
                  const AdamWConfig& cfg) {
  MOELAB_EXPECT(theta.size() == g.size(), "adamw_update: gradient size differs");
  if (st.m.size() != theta.size()) st.reset(theta.size());
  const double lr = cosine_lr(cfg, st.step);
  const double t = static_cast<double>(st.step + 1);
  const S decay = static_cast<S>(1.0 - lr * cfg.weight_decay);
  const S b1 = static_cast<S>(cfg.beta1), b2 = static_cast<S>(cfg.beta2);
  const S step_size = static_cast<S>(lr / (1.0 - std::pow(cfg.beta1, t)));
  const S sqrt_bc2 = static_cast<S>(std::sqrt(1.0 - std::pow(cfg.beta2, t)));
  const S eps = static_cast<S>(cfg.eps);
  Eigen::Index i = 0;
#if defined(__AVX2__) && defined(__FMA__)
  // Eight (float) or four (double) parameters at a time: the scalar loop's operations in its order,
  // each correctly rounded (vsqrt and vdiv are IEEE operations), so the same bytes; std::sqrt's errno branch kept the scalar loop from vectorising, and
  // that loop was ~6% of a quick-Fig. 2 run's CPU time (perf).
  if constexpr (std::is_same_v<S, float> || std::is_same_v<S, double>) {
    const auto set1 = [](S x) {
      if constexpr (std::is_same_v<S, float>) return _mm256_set1_ps(x);
      else return _mm256_set1_pd(x);
    };
    using V = decltype(set1(S(0)));  // __m256 or __m256d
    constexpr Eigen::Index W = sizeof(V) / sizeof(S);
    const auto ld = [](const S* p) {
      if constexpr (std::is_same_v<S, float>) return _mm256_loadu_ps(p);
      else return _mm256_loadu_pd(p);
    };
    const auto st_ = [](S* p, V x) {
      if constexpr (std::is_same_v<S, float>) _mm256_storeu_ps(p, x);
      else _mm256_storeu_pd(p, x);
    };
    const auto mul = [](V a, V b) {
      if constexpr (std::is_same_v<S, float>) return _mm256_mul_ps(a, b);
      else return _mm256_mul_pd(a, b);
    };
    const auto add = [](V a, V b) {
      if constexpr (std::is_same_v<S, float>) return _mm256_add_ps(a, b);
      else return _mm256_add_pd(a, b);
    };
    // GCC contracts the scalar loop's b1 m + (1 - b1) g and b2 v + (1 - b2) g g into one FMA each
    // (-ffp-contract=fast, its default; read in the object code), so the vector form does the same.
    const auto fma = [](V a, V b, V c) {
      if constexpr (std::is_same_v<S, float>) return _mm256_fmadd_ps(a, b, c);
      else return _mm256_fmadd_pd(a, b, c);
    };
    const auto sub = [](V a, V b) {
      if constexpr (std::is_same_v<S, float>) return _mm256_sub_ps(a, b);
      else return _mm256_sub_pd(a, b);
    };
    const auto div = [](V a, V b) {
      if constexpr (std::is_same_v<S, float>) return _mm256_div_ps(a, b);
      else return _mm256_div_pd(a, b);
    };
    const auto sqrt_ = [](V a) {
      if constexpr (std::is_same_v<S, float>) return _mm256_sqrt_ps(a);
      else return _mm256_sqrt_pd(a);
    };
    const V vdecay = set1(decay), vb1 = set1(b1), vc1 = set1(S(1) - b1), vb2 = set1(b2), vc2 = set1(S(1) - b2);
    const V vstep = set1(step_size), vbc2 = set1(sqrt_bc2), veps = set1(eps);
    S* th = theta.data();
    S* mm = st.m.data();
    S* vv = st.v.data();
    const S* gg = g.data();
    for (; i + W <= theta.size(); i += W) {
      const V gi = ld(gg + i);
      const V t = mul(ld(th + i), vdecay);
      const V m = fma(vb1, ld(mm + i), mul(vc1, gi));
      const V v = fma(vb2, ld(vv + i), mul(mul(vc2, gi), gi));
      st_(mm + i, m);
      st_(vv + i, v);
      st_(th + i, sub(t, div(mul(vstep, m), add(div(sqrt_(v), vbc2), veps))));
    }
  }
#endif
  for (; i < theta.size(); ++i) {
    theta[i] *= decay;
    st.m[i] = b1 * st.m[i] + (S(1) - b1) * g[i];
    st.v[i] = b2 * st.v[i] + (S(1) - b2) * g[i] * g[i];
    theta[i] -= step_size * st.m[i] / (std::sqrt(st.v[i]) / sqrt_bc2 + eps);
  }
  ++st.step;
}

template void adamw_update<float>(Eigen::VectorXf&, const Eigen::VectorXf&, AdamWState<float>&, const AdamWConfig&);
template void adamw_update<double>(Eigen::VectorXd&, const Eigen::VectorXd&, AdamWState<double>&, const AdamWConfig&);

}  // namespace moelab::moe
