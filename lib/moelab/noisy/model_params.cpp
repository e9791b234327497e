#include "moelab/noisy/model_params.hpp"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "moelab/core/distributions.hpp"
#include "moelab/core/error.hpp"
#include "moelab/core/memory.hpp"
#include "moelab/linalg/covariance.hpp"
#include "moelab/scenario/input_file.hpp"

namespace moelab::noisy {

namespace {

// Dense d_i x d_i blocks are stored: a block beyond this is a typo, not a model (8 GB of doubles).
constexpr std::int64_t kMaxBlockSize = 32768;
constexpr std::int64_t kMaxExperts = 1 << 20;

/// Joins "model" and "sigma2" -> "model.sigma2" (an empty prefix reads top-level keys).
std::string key_of(const std::string& prefix, const char* leaf) {
  return prefix.empty() ? std::string(leaf) : prefix + "." + leaf;
}

std::string sizes_list(const std::vector<int>& sizes) {
  std::string out;
  for (std::size_t i = 0; i < sizes.size(); ++i) out += (i ? ", " : "") + std::to_string(sizes[i]);
  return out;
}

/// Block sizes from k / block_size / block_sizes / d.
std::vector<int> parse_block_sizes(const ParamView& v, const std::string& prefix) {
  const std::string k_key = key_of(prefix, "k"), bs_key = key_of(prefix, "block_size"),
                    bss_key = key_of(prefix, "block_sizes"), d_key = key_of(prefix, "d");
  std::optional<std::int64_t> k;
  if (v.has(k_key)) {
    k = v.get_int_at_least(k_key, 1);
    if (*k > kMaxExperts) v.fail(k_key, fmt::format("must be <= {}, got {}", kMaxExperts, *k));
  }
  const bool has_bs = v.has(bs_key), has_bss = v.has(bss_key);
  if (has_bs && has_bss) v.fail(bss_key, "give either block_size (equal blocks) or block_sizes, not both");
  if (!has_bs && !has_bss) {
    v.fail(bs_key, "is required: give block_size (with k, equal blocks) or block_sizes (one size per expert)");
  }
  std::vector<int> sizes;
  if (has_bs) {
    const std::int64_t b = v.get_int_at_least(bs_key, 1);
    if (b > kMaxBlockSize) v.fail(bs_key, fmt::format("must be <= {}, got {}", kMaxBlockSize, b));
    if (!k) v.fail(k_key, "is required with block_size (the number of equal blocks)");
    sizes.assign(static_cast<std::size_t>(*k), static_cast<int>(b));
  } else {
    const auto raw = v.get_int_array(bss_key);
    if (raw.empty()) v.fail(bss_key, "must list at least one block size, got []");
    if (k && static_cast<std::int64_t>(raw.size()) != *k) {
      v.fail(bss_key, fmt::format("has {} entries, but k = {}", raw.size(), *k));
    }
    if (static_cast<std::int64_t>(raw.size()) > kMaxExperts) {
      v.fail(bss_key, fmt::format("has {} entries; at most {} experts are supported", raw.size(), kMaxExperts));
    }
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] < 1) v.fail_entry(bss_key, i, fmt::format("entry [{}] must be >= 1, got {}", i, raw[i]));
      if (raw[i] > kMaxBlockSize) v.fail_entry(bss_key, i, fmt::format("entry [{}] must be <= {}, got {}", i, kMaxBlockSize, raw[i]));
      sizes.push_back(static_cast<int>(raw[i]));
    }
  }
  std::int64_t sum = 0;
  for (const int b : sizes) sum += b;
  if (sum > INT_MAX) v.fail(has_bs ? bs_key : bss_key, fmt::format("block sizes add up to {}, more than {}", sum, INT_MAX));
  if (v.has(d_key)) {
    const std::int64_t d = v.get_int_at_least(d_key, 1);
    if (d != sum) v.fail(d_key, fmt::format("block sizes add up to {}, but d = {}", sum, d));
  }
  return sizes;
}

std::vector<double> parse_p(const ParamView& v, const std::string& prefix, std::size_t k) {
  const std::string key = key_of(prefix, "p");
  const toml::node* n = v.find(key);
  if (n == nullptr || n->is_string()) {
    v.get_choice(key, {"uniform"}, "uniform");
    return std::vector<double>(k, 1.0 / static_cast<double>(k));
  }
  const auto p = v.get_double_array(key);
  if (p.size() != k) v.fail(key, fmt::format("has {} entries, but k = {}", p.size(), k));
  double sum = 0.0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (!(p[i] > 0.0)) v.fail_entry(key, i, fmt::format("entry [{}] must be > 0, got {}", i, p[i]));
    sum += p[i];
  }
  // Tolerance 1e-9 relative: p written with ~10 significant digits (e.g. 1/3 as 0.3333333333) passes.
  if (std::fabs(sum - 1.0) > 1e-9) {
    v.fail(key, fmt::format("must add up to 1 (tolerance 1e-9), got sum {}", sum));
  }
  return p;
}

/// A matrix text file: numbers separated by whitespace or commas, one row per line; '#' starts a
/// comment. Rows keep their line numbers for messages.
struct MatrixText {
  std::vector<std::vector<double>> rows;
  std::vector<int> lines;
};

// A covariance file holds at most a few thousand rows of numbers: 256 MiB is a 3600 x 3600 matrix
// at 20 characters a number. Larger (or endless, such as /dev/zero) input is refused, not read.
constexpr std::uint64_t kMaxMatrixFileBytes = std::uint64_t{256} << 20;

/// `token` for a message: at most 40 characters (a binary file can hold one endless token).
std::string shown_token(const std::string& token) {
  return token.size() <= 40 ? token : token.substr(0, 40) + fmt::format("... ({} characters)", token.size());
}

MatrixText read_matrix_file(const std::string& file, const std::string& text, const std::string& key) {
  std::istringstream in(text);
  MatrixText m;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    for (char& c : line) {
      if (c == ',' || c == '\t' || c == '\r' || c == ';') c = ' ';
    }
    std::vector<double> row;
    std::size_t pos = 0;
    while (true) {
      pos = line.find_first_not_of(' ', pos);
      if (pos == std::string::npos) break;
      const std::size_t end = std::min(line.find(' ', pos), line.size());
      const std::string token = line.substr(pos, end - pos);
      double x = 0.0;
      const char* first = token.data() + (token[0] == '+' ? 1 : 0);
      const auto [ptr, ec] = std::from_chars(first, token.data() + token.size(), x);
      if (ec != std::errc() || ptr != token.data() + token.size() || !std::isfinite(x)) {
        throw InputError(file, lineno, "",
                         fmt::format("cannot read \"{}\" as a finite number (matrix file of '{}')", shown_token(token), key));
      }
      row.push_back(x);
      pos = end;
    }
    if (row.empty()) continue;
    if (!m.rows.empty() && row.size() != m.rows[0].size()) {
      throw InputError(file, lineno, "",
                       fmt::format("row has {} numbers, but the first row (line {}) has {} (matrix file of '{}')",
                                   row.size(), m.lines[0], m.rows[0].size(), key));
    }
    m.rows.push_back(std::move(row));
    m.lines.push_back(lineno);
  }
  if (in.bad()) throw InputError(file, lineno, "", fmt::format("read error (matrix file of '{}')", key));
  if (m.rows.empty()) throw InputError(file, 0, "", fmt::format("contains no numbers (matrix file of '{}')", key));
  if (m.rows.size() != m.rows[0].size()) {
    throw InputError(file, m.lines.back(), "",
                     fmt::format("{} rows of {} numbers: not a square matrix (matrix file of '{}')", m.rows.size(),
                                 m.rows[0].size(), key));
  }
  return m;
}

std::vector<Eigen::MatrixXd> covariance_from_file(const ParamView& v, const std::string& prefix,
                                                  const std::vector<int>& sizes) {
  const std::string key = key_of(prefix, "covariance.path");
  const std::string written = v.get_string(key);
  std::filesystem::path file(written);
  if (file.is_relative()) file = std::filesystem::path(v.file()).parent_path() / file;
  const std::string file_str = file.lexically_normal().string();
  std::string text;
  {
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) v.fail(key, fmt::format("cannot read file '{}'", file_str));
    try {
      text = read_input_file(file_str, kMaxMatrixFileBytes, "a matrix file");
    } catch (const InputError& e) {
      v.fail(key, fmt::format("'{}' {}", file_str, e.reason() == "cannot read file" ? "cannot be read" : e.reason()));
    }
  }
  const MatrixText m = read_matrix_file(file_str, text, key);
  const int n = static_cast<int>(m.rows.size());
  const bool equal_blocks = std::all_of(sizes.begin(), sizes.end(), [&](int b) { return b == sizes[0]; });
  int d = 0;
  for (const int b : sizes) d += b;

  Eigen::MatrixXd full(n, n);
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) full(r, c) = m.rows[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)];

  std::vector<Eigen::MatrixXd> out;
  if (equal_blocks && n == sizes[0]) {
    out.assign(sizes.size(), full);  // one d_b x d_b matrix shared by every block
    return out;
  }
  if (n != d) {
    v.fail(key, fmt::format("'{}' holds a {} x {} matrix, but the blocks have sizes {} (give {}the full {} x {} matrix)",
                            file_str, n, n, sizes_list(sizes),
                            equal_blocks ? fmt::format("one {} x {} block or ", sizes[0], sizes[0]) : "", d, d));
  }
  // Full d x d: take the diagonal blocks; the model is block diagonal, so the rest must be 0.
  std::vector<int> block_of(static_cast<std::size_t>(d));
  for (int i = 0, o = 0; i < static_cast<int>(sizes.size()); o += sizes[static_cast<std::size_t>(i)], ++i)
    for (int j = 0; j < sizes[static_cast<std::size_t>(i)]; ++j) block_of[static_cast<std::size_t>(o + j)] = i;
  for (int r = 0; r < d; ++r) {
    for (int c = 0; c < d; ++c) {
      if (block_of[static_cast<std::size_t>(r)] != block_of[static_cast<std::size_t>(c)] && full(r, c) != 0.0) {
        throw InputError(file_str, m.lines[static_cast<std::size_t>(r)], "",
                         fmt::format("entry ({}, {}) = {} lies outside the diagonal blocks (sizes {}) and must be 0 "
                                     "(matrix file of '{}')",
                                     r, c, full(r, c), sizes_list(sizes), key));
      }
    }
  }
  for (int i = 0, o = 0; i < static_cast<int>(sizes.size()); o += sizes[static_cast<std::size_t>(i)], ++i) {
    const int b = sizes[static_cast<std::size_t>(i)];
    out.push_back(full.block(o, o, b, b));
  }
  return out;
}

/// Fails when a key that `kind` does not use is present (rather than a vague "unknown key").
void reject_unused(const ParamView& v, const std::string& table, const std::string& kind,
                   const std::vector<std::pair<const char*, const char*>>& key_and_kinds) {
  for (const auto& [leaf, kinds] : key_and_kinds) {
    const std::string key = table + "." + leaf;
    if (v.has(key)) {
      v.mark_used(key);
      v.fail(key, fmt::format("is not used with kind = \"{}\" (only with {})", kind, kinds));
    }
  }
}

std::vector<Eigen::MatrixXd> parse_covariance(const ParamView& v, const std::string& prefix,
                                              const std::vector<int>& sizes) {
  const std::string table = key_of(prefix, "covariance");
  if (const toml::node* n = v.find(table); n && !n->is_table()) {
    v.fail(table, "must be a table ([model.covariance] with kind = \"identity\" | \"diagonal\" | \"toeplitz\" | \"file\")");
  }
  const std::string kind =
      v.get_choice(table + ".kind", {"identity", "diagonal", "toeplitz", "file"}, "identity");
  std::vector<Eigen::MatrixXd> sigma;
  int d = 0;
  for (const int b : sizes) d += b;

  if (kind == "identity") {
    reject_unused(v, table, kind, {{"rho", "toeplitz"}, {"values", "diagonal"}, {"path", "file"}});
    const double scale = v.get_positive(table + ".scale", 1.0);
    for (const int b : sizes) sigma.push_back(identity_covariance(b, scale));
    return sigma;  // SPD by construction
  }
  if (kind == "toeplitz") {
    reject_unused(v, table, kind, {{"values", "diagonal"}, {"path", "file"}});
    const double scale = v.get_positive(table + ".scale", 1.0);
    const double rho = v.get_double(table + ".rho");
    if (!(std::fabs(rho) < 1.0)) {
      v.fail(table + ".rho", fmt::format("must satisfy |rho| < 1 (else the Toeplitz matrix is not positive definite), got {}", rho));
    }
    for (const int b : sizes) sigma.push_back(toeplitz_covariance(b, rho, scale));
  } else if (kind == "diagonal") {
    reject_unused(v, table, kind, {{"scale", "identity, toeplitz"}, {"rho", "toeplitz"}, {"path", "file"}});
    const std::string key = table + ".values";
    const auto values = v.get_double_array(key);
    const bool equal_blocks = std::all_of(sizes.begin(), sizes.end(), [&](int b) { return b == sizes[0]; });
    const bool per_block = equal_blocks && values.size() == static_cast<std::size_t>(sizes[0]);
    if (!per_block && values.size() != static_cast<std::size_t>(d)) {
      v.fail(key, fmt::format("has {} entries, but d = {}{}", values.size(), d,
                              equal_blocks ? fmt::format(" (or give {}, one block's diagonal)", sizes[0]) : ""));
    }
    for (std::size_t j = 0; j < values.size(); ++j) {
      if (!(values[j] > 0.0)) {
        v.fail_entry(key, j, fmt::format("entry [{}] must be > 0 (a covariance diagonal), got {}", j, values[j]));
      }
    }
    for (std::size_t i = 0, o = 0; i < sizes.size(); ++i) {
      const auto b = static_cast<std::size_t>(sizes[i]);
      const std::size_t first = per_block ? 0 : o;
      sigma.push_back(diagonal_covariance(std::vector<double>(values.begin() + static_cast<std::ptrdiff_t>(first),
                                                              values.begin() + static_cast<std::ptrdiff_t>(first + b))));
      o += b;
    }
  } else {  // file
    reject_unused(v, table, kind, {{"scale", "identity, toeplitz"}, {"rho", "toeplitz"}, {"values", "diagonal"}});
    sigma = covariance_from_file(v, prefix, sizes);
  }

  // noisy, Sec. 3.2: every Sigma_i must be SPD. Shared blocks are checked once.
  for (std::size_t i = 0; i < sigma.size(); ++i) {
    if (i > 0 && sigma[i].rows() == sigma[i - 1].rows() && sigma[i] == sigma[i - 1]) continue;
    const std::string why = spd_violation(sigma[i]);
    if (!why.empty()) {
      v.fail(table, fmt::format("Sigma_{} (block {} of {}, 0-based) is not symmetric positive definite: {}", i, i,
                                sigma.size(), why));
    }
  }
  return sigma;
}

std::vector<Eigen::VectorXd> parse_beta(const ParamView& v, const std::string& prefix, const std::vector<int>& sizes) {
  const std::string table = key_of(prefix, "beta");
  if (const toml::node* n = v.find(table); n && !n->is_table()) {
    v.fail(table, "must be a table ([model.beta] with kind = \"random\" | \"given\" | \"ones\")");
  }
  const std::string kind = v.get_choice(table + ".kind", {"random", "given", "ones"}, "random");
  int d = 0;
  for (const int b : sizes) d += b;
  Eigen::VectorXd full(d);
  if (kind == "random") {
    reject_unused(v, table, kind, {{"values", "given"}});
    const auto seed = static_cast<std::uint64_t>(v.get_int_at_least(table + ".seed", 0, 0));
    const double scale = v.get_positive(table + ".scale", 1.0);
    // beta* ~ N(0, scale^2 / d I_d), so that ||beta*||^2 ~ scale^2 whatever d.
    const RandomStream rs(seed, StreamTag::beta_star, 0);
    const double sd = scale / std::sqrt(static_cast<double>(d));
    for (int j = 0; j < d; ++j) full(j) = sd * rs.normal(static_cast<std::uint64_t>(j));
  } else if (kind == "given") {
    reject_unused(v, table, kind, {{"seed", "random"}, {"scale", "random, ones"}});
    const std::string key = table + ".values";
    const auto values = v.get_double_array(key);
    if (values.size() != static_cast<std::size_t>(d)) v.fail(key, fmt::format("has {} entries, but d = {}", values.size(), d));
    for (int j = 0; j < d; ++j) full(j) = values[static_cast<std::size_t>(j)];
  } else {  // ones
    reject_unused(v, table, kind, {{"seed", "random"}, {"values", "given"}});
    const double scale = v.get_positive(table + ".scale", 1.0);
    full.setConstant(scale / std::sqrt(static_cast<double>(d)));
  }
  std::vector<Eigen::VectorXd> beta;
  for (std::size_t i = 0, o = 0; i < sizes.size(); o += static_cast<std::size_t>(sizes[i]), ++i) {
    beta.push_back(full.segment(static_cast<Eigen::Index>(o), sizes[i]));
  }
  return beta;
}

}  // namespace

Model parse_model(const ParamView& v, const std::string& prefix) {
  if (!prefix.empty()) {
    const toml::node* n = v.find(prefix);
    if (n == nullptr) v.fail(prefix, fmt::format("required table [{}] is missing", prefix));
    if (!n->is_table()) v.fail(prefix, fmt::format("must be a table ([{}])", prefix));
  }
  Model m;
  const std::vector<int> sizes = parse_block_sizes(v, prefix);
  {
    // The dense blocks are allocated here, before any cost model runs: Sigma_i, and in the
    // studies its Cholesky factor, the Bayes solves and a copy, ~4 x 8 sum d_i^2 bytes. A model that
    // cannot fit in this machine's memory is refused now rather than ending in std::bad_alloc (or
    // the OOM killer) while the blocks are filled.
    double squares = 0.0;
    for (const int b : sizes) squares += static_cast<double>(b) * b;
    const double bytes = 4.0 * 8.0 * squares, limit = machine_memory_bytes();
    if (bytes > limit) {
      const std::string key = v.find(key_of(prefix, "block_sizes")) ? key_of(prefix, "block_sizes") : key_of(prefix, "block_size");
      v.fail(key, fmt::format("{} dense blocks of sizes up to {} would need about {} (4 x 8 sum d_i^2 bytes), more than "
                              "this machine's memory ({})",
                              sizes.size(), *std::max_element(sizes.begin(), sizes.end()), format_bytes(bytes),
                              format_bytes(limit)));
    }
  }
  m.p = parse_p(v, prefix, sizes.size());
  m.sigma2 = v.get_positive(key_of(prefix, "sigma2"));
  m.sigma = parse_covariance(v, prefix, sizes);
  m.beta_star = parse_beta(v, prefix, sizes);
  m.check_consistent();
  return m;
}

}  // namespace moelab::noisy
