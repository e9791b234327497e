// The [model] table of a scenario -> noisy::Model (noisy paper, Sec. 3.2), with every domain check
// the paper's setting needs, reported with file, line and key (docs/scenarios.md, "[model]").
//
//   [model]
//   k = 4                    # experts (int >= 1)
//   block_size = 8           # equal blocks, or block_sizes = [8, 8, 4, 4] (length k)
//   d = 32                   # optional; must equal the sum of the block sizes
//   p = "uniform"            # or [0.4, 0.3, 0.2, 0.1]: each > 0, sum 1 (1e-9 relative)
//   sigma2 = 0.5             # feature-noise variance (> 0)
//   [model.covariance]       # kind = identity (scale) | diagonal (values) | toeplitz (rho, scale)
//   kind = "toeplitz"        #        | file (path: one d_b x d_b block, or the full d x d matrix)
//   rho = 0.5
//   [model.beta]             # kind = random (seed, scale) | given (values) | ones (scale)
//   kind = "random"
//   seed = 7
//
// parse_model reads (and marks used) only keys under `prefix`; the caller runs
// ParamView::check_all_used() afterwards, so unknown keys in [model] are reported.
#pragma once

#include <string>

#include "moelab/noisy/model.hpp"
#include "moelab/scenario/params.hpp"

namespace moelab::noisy {

Model parse_model(const ParamView& v, const std::string& prefix = "model");

}  // namespace moelab::noisy
