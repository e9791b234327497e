"""moelab's closed forms from Python against independent computations written here in NumPy/math
(the formulas as the papers state them), and the argument checks. Tolerances: the C++ and the
NumPy forms evaluate the same expressions in a different order, so they agree to a few ulps of the
result; 1e-12 relative leaves room for log/sqrt rounding (each ~1 ulp) without hiding a wrong term,
which would change the result in its leading digits."""
import math

import numpy as np
import pytest

import moelab

REL = 1e-12


def close(a, b, rel=REL):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def test_theorem1_printed_and_eq17_are_the_papers_formulas():
    rng = np.random.default_rng(11)
    for _ in range(50):
        T = int(rng.integers(1, 65)); k = int(rng.integers(1, T + 1)); N = int(rng.integers(1, 9))
        d = int(rng.integers(0, 20)); m = int(rng.integers(1, 10**6)); C = float(rng.uniform(0.1, 3))
        R = float(rng.uniform(0, 1)); delta = float(rng.uniform(0.001, 0.5))
        # Eq. 5: 4 C R + 2 sqrt((2 k N d log T + N d log(2m) + log(2/delta)) / (2m))
        printed = 4 * C * R + 2 * math.sqrt((2 * k * N * d * math.log(T) + N * d * math.log(2 * m) + math.log(2 / delta)) / (2 * m))
        got = moelab.bounds.theorem1(C=C, rademacher=R, k=k, N=N, d_N=d, T=T, m=m, delta=delta)
        assert close(got["total"], printed)
        # Eq. 17: log C(T, k) kept exact in place of k log T
        logC = math.lgamma(T + 1) - math.lgamma(k + 1) - math.lgamma(T - k + 1)
        eq17 = 4 * C * R + 2 * math.sqrt((2 * N * d * logC + N * d * math.log(2 * m) + math.log(2 / delta)) / (2 * m))
        assert close(moelab.bounds.theorem1(C=C, rademacher=R, k=k, N=N, d_N=d, T=T, m=m, delta=delta, form="eq17")["total"], eq17, 1e-10)
        assert moelab.bounds.theorem1(C=C, rademacher=R, k=k, N=N, d_N=d, T=T, m=m, delta=delta, form="eq17")["total"] <= got["total"] * (1 + 1e-15)


def test_log_binomial_and_growth_functions_against_exact_integers():
    for n, k in [(10, 3), (64, 32), (200, 7), (1000, 500)]:
        assert close(moelab.bounds.log_binomial(n, k), math.log(math.comb(n, k)), 1e-13)
    # Haussler-Long: log sum_{i<=d} C(m, i) C(labels, 2)^i, exact integers
    for m, d, L in [(10, 3, 2), (20, 4, 5), (7, 9, 3)]:
        exact = sum(math.comb(m, i) * math.comb(L, 2) ** i for i in range(min(d, m) + 1))
        assert close(moelab.bounds.log_haussler_long(m, d, L), math.log(exact), 1e-13)
    assert close(moelab.bounds.log_natarajan_growth(100, 3, 4), 3 * math.log(100) + 6 * math.log(4))
    T, k, N, dN, m = 16, 4, 2, 3, 500
    assert close(moelab.bounds.log_mask_growth(T, k, N, dN, m), 2 * N * dN * math.log(math.comb(T, k)) + N * dN * math.log(2 * m))
    assert close(moelab.bounds.log_mask_growth(T, k, N, dN, m, relaxed=True), 2 * k * N * dN * math.log(T) + N * dN * math.log(2 * m))


def test_sparsity_difficulty_is_the_study_bit_for_bit_and_app_a5():
    """k_star(difficulty='powerlaw') runs sparsity::with_difficulty, the code of sparsity.kstar_difficulty:
    the same doubles as moelab.run on that study. The weight sum against App. A.5 written here."""
    N, m, dN, T, a = 8, 1e4, 2, 64, 0.01
    for alpha in (1.5, 2.0, 3.0):
        got = moelab.sparsity.k_star(N, m, dN, T, a, form="theorem1", difficulty="powerlaw", alpha=alpha)
        r = moelab.run("sparsity.kstar_difficulty", {"params": {"N": float(N), "m": m, "d_N": float(dN), "T": T, "a": a,
                       "form": "theorem1", "difficulty": "powerlaw", "difficulty_alpha": alpha}})["data"]
        assert got["k_integer"] == r["k_star"][0]
        assert got["error_integer"] == r["error_at_k_star"][0]
        assert got["k_real"] == r["k_star_real"][0]
        # E_approx = a W / k with W = sum_{i,i'} (i + i')^-alpha (App. A.5, D_i = i)
        W = sum((i + j) ** -alpha for i in range(1, N + 1) for j in range(1, N + 1))
        assert close(r["weight_sum"][0], W)
        k = np.array([3.0])
        assert close(moelab.sparsity.total_error(k, N, m, dN, T, a, form="theorem1", part="approximation",
                                                 difficulty="powerlaw", alpha=alpha)[0], a * W / 3.0)
        uniform = moelab.sparsity.k_star(N, m, dN, T, a, form="theorem1")
        assert got["k_integer"] < uniform["k_integer"]  # W < N^2: less approximation error, smaller k*
    # uniform is the plain trade-off, bit for bit; a list profile equal to 1..N is the index profile
    assert moelab.sparsity.k_star(N, m, dN, T, a, form="theorem1", difficulty="uniform") == moelab.sparsity.k_star(N, m, dN, T, a, form="theorem1")
    assert moelab.sparsity.k_star(N, m, dN, T, a, form="theorem1", difficulty="powerlaw", profile="list", D=[float(i) for i in range(1, N + 1)]) == \
        moelab.sparsity.k_star(N, m, dN, T, a, form="theorem1", difficulty="powerlaw")
    for bad, msg in [(dict(difficulty="powerlaw", alpha=1.0), "alpha"), (dict(difficulty="steep"), "difficulty"),
                     (dict(difficulty="powerlaw", profile="list", D=[1.0]), "N = 8 entries")]:
        with pytest.raises(ValueError, match=msg):
            moelab.sparsity.k_star(N, m, dN, T, a, **bad)


def test_sparsity_tradeoff_is_definition5_and_k_star_is_T():
    N, m, dN, T, a, b = 4.0, 1e5, 3.0, 16, 0.5, 2.0
    k = np.array([1.0, 2.0, 3.5, 8.0, 16.0])
    expect = a * N**2 / k + b * np.sqrt(N * k * dN * np.log(T / k) / m)
    got = moelab.sparsity.total_error(k, N, m, dN, T, a, b)
    assert np.allclose(got, expect, rtol=REL, atol=0)
    assert np.allclose(moelab.sparsity.total_error(k, N, m, dN, T, a, b, part="approximation"), a * N**2 / k, rtol=REL)
    # docs/sparsity.md: under Definition 5 as printed, k* = T for every parameter choice.
    for T in [2, 7, 64]:
        assert moelab.sparsity.k_star(N, m, dN, T)["k_integer"] == T
    # Theorem 1's own k-term can give an interior optimum: a brute-force scan over integers is the reference.
    N, m, dN, T, a, b = 2.0, 1e3, 2.0, 64, 0.05, 1.0
    ks = np.arange(1, T + 1, dtype=float)
    errs = moelab.sparsity.total_error(ks, N, m, dN, T, a, b, form="theorem1")
    best = moelab.sparsity.k_star(N, m, dN, T, a, b, form="theorem1")
    assert best["k_integer"] == int(ks[np.argmin(errs)])
    assert 1 < best["k_integer"] < T


def test_covering_bound_and_compute_optimal():
    P_attn, P_exp, L, k, M, ell, kappa, R, delta = 1e6, 1e5, 4, 2, 16, 128, 2.0, 3.0, 0.01
    c = moelab.scaling.covering_bound(P_attn, P_exp, L, k, M, ell, kappa, R, delta)
    assert close(c["active_parameters"], P_attn + L * k * P_exp)
    assert close(c["routing_overhead"], L * ell * k * math.log(math.e * M / k))
    assert close(c["routing_overhead_exact"], L * ell * math.log(math.comb(M, k)), 1e-13)
    assert c["routing_overhead_exact"] <= c["routing_overhead"]
    # Compute-optimal: closed form against a brute-force minimisation over a fine log grid of N.
    A, aN, B, aD, F = 400.0, 0.34, 410.0, 0.28, 1e20
    r = moelab.scaling.compute_optimal(np.array([F]), A=A, alpha_N=aN, B=B, alpha_D=aD)
    logN = np.linspace(math.log(1e6), math.log(1e12), 600001)
    N = np.exp(logN)
    loss = A * N**-aN + B * (F / (6 * N))**-aD
    i = int(np.argmin(loss))
    step = logN[1] - logN[0]
    assert abs(math.log(r["N_opt"][0]) - logN[i]) <= step   # the grid's resolution
    assert close(r["loss"][0], loss[i], 1e-9)                 # flat at the optimum: loss error ~ step^2
    assert close(r["exponent_N"], aD / (aN + aD))


def model():
    return moelab.noisy.model({"k": 3, "block_sizes": [4, 3, 2], "p": [0.5, 0.3, 0.2], "sigma2": 0.4,
                               "covariance": {"kind": "toeplitz", "rho": 0.6}, "beta": {"kind": "random", "seed": 5}})


def test_noisy_bayes_risks_against_numpy():
    m = model()
    S, beta, p, s2 = m.covariances, m.beta, np.array(m.p), m.sigma2
    d = m.d
    # Dense Bayes (Eq. 3): b = E[xbar xbar']^-1 E[xbar y], with E[xbar xbar'] = blockdiag(p_i Sigma_i) + s2 I.
    G = s2 * np.eye(d); h = np.zeros(d); Ey2 = 0.0; o = 0
    for Si, bi, pi in zip(S, beta, p):
        n = Si.shape[0]
        G[o:o + n, o:o + n] += pi * Si
        h[o:o + n] = pi * Si @ bi
        Ey2 += pi * bi @ Si @ bi
        o += n
    b = np.linalg.solve(G, h)
    assert np.allclose(moelab.noisy.bayes_dense(m), b, rtol=1e-12, atol=1e-14)
    assert close(moelab.noisy.thm2(m)["dense"], Ey2 - h @ b, 1e-11)
    # Correctly routed sparse: each expert sees its own block's noisy features only.
    sparse = 0.0
    for Si, bi, pi in zip(S, beta, p):
        Sb = Si @ bi
        sparse += pi * (bi @ Sb - Sb @ np.linalg.solve(Si + s2 * np.eye(Si.shape[0]), Sb))
    assert close(moelab.noisy.thm2(m)["sparse"], sparse, 1e-11)
    # Control: the estimator fitted without noise (s2 = 0 in G) must have a strictly larger risk.
    b0 = np.linalg.solve(G - s2 * np.eye(d) + 1e-12 * np.eye(d), h)
    assert moelab.noisy.dense_risk(m, b0) > moelab.noisy.dense_risk(m, b) * (1 + 1e-6)
    assert close(moelab.noisy.dense_risk(m, b), Ey2 - h @ b, 1e-11)


def test_a63_exact_forms():
    beta, l2, s2, n = 1.3, 2.0, 0.5, 12
    r = moelab.noisy.a63(beta, l2, s2, n)
    assert close(r["excess_exact"], beta**2 * l2 * s2 / ((l2 + s2) * (n - 2)))
    assert close(r["variance_exact"], beta**2 * l2 * s2**2 / ((l2 + s2) ** 2 * (n - 2)))
    assert close(r["bias_printed"], s2 * l2 * beta**2 / (l2 + s2))


@pytest.mark.parametrize("call, message", [
    (lambda: moelab.bounds.theorem1(C=1, rademacher=0.1, k=9, N=4, d_N=3, T=8, m=100), "theorem1: k must be an integer in [1, 8], got 9"),
    (lambda: moelab.bounds.theorem1(C=1, rademacher=0.1, k=2, N=4, d_N=3, T=8, m=100, delta=float("nan")), "delta must be in (0, 1)"),
    (lambda: moelab.bounds.theorem1(C=1, rademacher=0.1, k=2, N=4, d_N=3, T=8, m=100, form="eq5"), "form must be printed, eq17 or derived"),
    (lambda: moelab.sparsity.k_star(1, 1, 1, 2.5), "T must be an integer"),
    (lambda: moelab.sparsity.total_error(np.array([0.5]), 1, 1, 1, 4), "k must be in [1, T]"),
    (lambda: moelab.scaling.covering_bound(0, 1, 1, 5, 4, 1), "k must be in [1, M]"),
    (lambda: moelab.scaling.compute_optimal(np.array([1.0])), "F must be finite and > c"),
    (lambda: moelab.noisy.model({"k": 2, "block_size": 2, "sigma2": -1}), "key 'model.sigma2'"),
    (lambda: moelab.noisy.model({"k": 2, "block_size": 2, "sigma2": 1, "typo": 3}), "key 'model.typo': unknown key"),
    (lambda: moelab.noisy.thm4(model(), 1, 1), "distinct experts"),
    (lambda: moelab.noisy.dense_risk(model(), np.zeros(3)), "length d = 9"),
    (lambda: moelab.noisy.a63(1, 1, 1, 2), "n must be finite and >= 3"),
])
def test_bad_arguments_raise_value_error_naming_them(call, message):
    with pytest.raises(ValueError) as e:
        call()
    assert message in str(e.value)


def test_frame_is_a_dataframe_with_metadata():
    pd = pytest.importorskip("pandas")
    r = moelab.run("spectra.spike", {"params": {"M": 30, "c": 0.5, "ell": 3.0}}, trials=10, seed=2)
    df = moelab.run("spectra.spike", {"params": {"M": 30, "c": 0.5, "ell": 3.0}}, trials=10, seed=2, frame=True)
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns) == r["columns"]
    assert df["top_mean"].iloc[0] == r["data"]["top_mean"][0]
    assert df.attrs["metadata"]["study"] == "spectra.spike"
    assert moelab.frame(r).equals(df)


def test_theorem1_takes_keywords_only():
    # Positional calls are refused: the CLI's option order (m, T, k, N, d_N) and the paper's differ,
    # and a silently swapped k and N would give a wrong bound.
    with pytest.raises(TypeError):
        moelab.bounds.theorem1(1, 0.1, 2, 4, 3, 8, 100)
