// The spectra topic's claims: one file per family (claims_mp, claims_tw, claims_spike,
// claims_info_plus_noise); this file lists them for the catalogue.
#include "moelab/claims/claim.hpp"
#include "moelab/spectra/detail/claim_support.hpp"

namespace moelab::spectra {

void register_claims(claims::Registry& r) {
  using namespace detail;
  r.add({"spectra.mp.gaussian", "Marchenko & Pastur 1967; Bai & Silverstein 2010, Thm 3.6",
         "The ESD of (1/N) X X' (X M x N, iid N(0, 1), M/N -> c) converges to MP(c, 1).", ClaimKind::asymptotic,
         check_mp_gaussian});
  r.add({"spectra.mp.universality", "Bai & Silverstein 2010, Thm 3.6 (two moments suffice)",
         "With iid Rademacher entries, c = 2 > 1 and sigma2 = 1.5 the ESD converges to MP(2, 1.5), atom 1/2 at 0 included.",
         ClaimKind::asymptotic, check_mp_universality});
  r.add({"spectra.tw.wishart_real", "Johnstone 2001, Thm 1.1; Tracy & Widom 1996",
         "(l1 - mu_np) / sigma_np of a real white Wishart matrix converges in law to TW1 (mean and variance tested).",
         ClaimKind::asymptotic, [](const CheckBudget& b, const RngKey& k) { return check_tw(b, k, 1); }});
  r.add({"spectra.tw.wishart_complex", "Johansson 2000, Thm 1.6; Tracy & Widom 1994",
         "(l1 - mu_np) / sigma_np of a complex white Wishart matrix converges in law to TW2 (mean and variance tested).",
         ClaimKind::asymptotic, [](const CheckBudget& b, const RngKey& k) { return check_tw(b, k, 2); }});
  r.add({"spectra.spike.limit", "Baik & Silverstein 2006, Thm 1.1; Baik, Ben Arous & Peche 2005",
         "A spike ell > 1 + sqrt(c) of the population covariance sends the top sample eigenvalue to sigma2 ell (1 + c/(ell - 1)).",
         ClaimKind::asymptotic, check_spike_limit});
  r.add({"spectra.spike.fluctuation", "Paul 2007, Thm 3; Bai & Yao 2008",
         "sqrt(N) (lambda_hat - rho) -> N(0, 2 sigma2^2 ell^2 (1 - c/(ell - 1)^2)) for real Gaussian data.",
         ClaimKind::asymptotic, check_spike_fluctuation});
  r.add({"spectra.spike.overlap", "Paul 2007, Thm 4",
         "<v_hat, e_1>^2 -> (1 - c/(ell - 1)^2) / (1 + c/(ell - 1)) above the threshold.", ClaimKind::asymptotic,
         check_spike_overlap});
  r.add({"spectra.spike.subcritical", "Baik & Silverstein 2006, Thm 1.1",
         "A spike ell <= 1 + sqrt(c) leaves the top sample eigenvalue at the bulk edge sigma2 (1 + sqrt c)^2.",
         ClaimKind::asymptotic, check_spike_subcritical});
  r.add({"spectra.ipn.overlap", "Benaych-Georges & Nadakuditi 2012 (rectangular additive perturbation)",
         "Above sqrt(c) sigma2 the top singular vectors of B + W have squared overlaps (t^2 - c)/(t (t + c)) (left) and "
         "(t^2 - c)/(t (t + 1)) (right) with those of B, t = lambda / sigma2.",
         ClaimKind::asymptotic, check_ipn_overlap});
  r.add({"spectra.ds.esd", "Dozier & Silverstein 2007",
         "The ESD of (B + W)(B + W)' with a full-rank signal converges to the law whose Stieltjes transform solves "
         "the Dozier-Silverstein equation.",
         ClaimKind::asymptotic, check_ds_esd});
}

}  // namespace moelab::spectra

