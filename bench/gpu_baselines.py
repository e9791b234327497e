#!/usr/bin/env python3
"""GPU baselines for bench/gpu_run.sh, written as a user of PyTorch / CuPy would write them.

1. The HBM roofline: a device-to-device copy of 4 GiB (median of 20, CUDA events), bandwidth
   counting bytes read plus bytes written.
2. W2, region masses (granularity Lemma 3.2): x ~ N(0, I/d) in float64, scores X R', top-k set,
   its rank in the combinatorial number system, a histogram of ranks (torch.bincount when
   C(m, k) <= 2^22, torch.unique over all ranks otherwise), in batches of 2^20 points; float32 too.
   With --routing-log, the fraction of the roofline that bench_routing's CUDA paths reach, counting
   the bytes the pipeline must move per point: points written and read (2 x 8 d), scores written
   and read (2 x 8 m), a rank written (8; hashed path) - against the measured copy bandwidth.
3. W3, batched spectra: X (T, M, N) float64 normal, G = X X' / N, eigvalsh(G), torch and CuPy,
   at the shapes gpu_bench_spectra times (tests/gpu/spectra_gpu_bench.cpp).
Prints one line per measurement ("baseline ..."), median of 3 after a warm-up.
"""
import argparse
import math
import re
import statistics
import sys
import time


def timed(fn, reps=3, sync=lambda: None):
    fn()
    sync()
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        sync()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=20_000_000)
    ap.add_argument("--routing-log", default=None)
    a = ap.parse_args()
    try:
        import torch
    except Exception as e:  # noqa: BLE001
        print(f"baseline skipped: torch not importable ({e})")
        return 0
    if not torch.cuda.is_available():
        print("baseline skipped: torch sees no CUDA device")
        return 0
    dev = torch.device("cuda")
    print(f"baseline device {torch.cuda.get_device_name(0)} torch {torch.__version__}")
    sync = torch.cuda.synchronize

    # 1. copy bandwidth (random data, never zeros)
    n = 1 << 29  # 4 GiB of float64
    src = torch.randn(n, dtype=torch.float64, device=dev)
    dst = torch.empty_like(src)
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(3):
        dst.copy_(src)
    ts = []
    for _ in range(20):
        start.record()
        dst.copy_(src)
        stop.record()
        stop.synchronize()
        ts.append(start.elapsed_time(stop) / 1e3)
    assert torch.equal(dst[:1000], src[:1000])
    bw = 2 * 8 * n / statistics.median(ts)
    print(f"baseline copy bytes {2 * 8 * n} seconds_median {statistics.median(ts):.5f} bandwidth_GBps {bw / 1e9:.1f}")
    del src, dst

    # 2. routing region masses
    def routing(m, k, d, points, dtype):
        R = torch.randn(m, d, dtype=dtype, device=dev)
        table = torch.tensor([[math.comb(c, i + 1) for c in range(m + 1)] for i in range(k)], dtype=torch.int64, device=dev)
        C = math.comb(m, k)
        B = 1 << 20

        def run():
            hist = torch.zeros(C, dtype=torch.int64, device=dev) if C <= (1 << 22) else None
            ranks = []
            for s in range(0, points, B):
                b = min(B, points - s)
                X = torch.randn(b, d, dtype=dtype, device=dev) / math.sqrt(d)
                idx = (X @ R.T).topk(k, dim=1).indices.sort(dim=1).values
                r = table.gather(1, idx.T).sum(0)  # sum_i C(idx_(i), i + 1)
                if hist is not None:
                    hist += torch.bincount(r, minlength=C)
                else:
                    ranks.append(r)
            if hist is None:
                return torch.unique(torch.cat(ranks), return_counts=True)
            return hist

        return timed(run, sync=sync)

    for (m, k, d) in [(16, 8, 256), (256, 8, 256), (64, 8, 1024)]:
        for dtype in (torch.float64, torch.float32):
            t = routing(m, k, d, a.points, dtype)
            print(f"baseline routing lib torch dtype {str(dtype).split('.')[-1]} m {m} k {k} d {d} points {a.points} "
                  f"seconds_median {t:.4f} samples_per_second {a.points / t:.4g}")

    if a.routing_log:
        for line in open(a.routing_log):
            mm = re.search(r"routing m (\d+) k (\d+) d (\d+) path (cuda-\w+) .*samples_per_second ([0-9.e+]+)", line)
            if not mm:
                continue
            m, k, d, path, sps = int(mm[1]), int(mm[2]), int(mm[3]), mm[4], float(mm[5])
            dim = m if path == "cuda-projected" else d
            per_point = 16 * dim + 16 * m + (8 if math.comb(m, k) > (1 << 22) else 0)
            print(f"roofline routing m {m} k {k} d {d} path {path} bytes_per_point {per_point} achieved_GBps "
                  f"{sps * per_point / 1e9:.1f} fraction_of_copy {sps * per_point / bw:.3f}")

    # 3. batched spectra, torch and CuPy
    shapes = [(32, 64, 10000), (200, 400, 500), (4000, 8000, 1)]

    def torch_spectra(M, N, T):
        def run():
            X = torch.randn(T, M, N, dtype=torch.float64, device=dev)
            return torch.linalg.eigvalsh(X @ X.mT / N)
        return timed(run, sync=sync)

    for (M, N, T) in shapes:
        t = torch_spectra(M, N, T)
        print(f"baseline spectra lib torch M {M} N {N} trials {T} seconds_median {t:.4f} matrices_per_second {T / t:.4g}")
    try:
        import cupy as cp
    except Exception as e:  # noqa: BLE001
        print(f"baseline cupy skipped ({e})")
        return 0
    csync = cp.cuda.Device().synchronize
    for (M, N, T) in shapes:
        def run():
            X = cp.random.standard_normal((T, M, N), dtype=cp.float64)
            return cp.linalg.eigvalsh(X @ X.transpose(0, 2, 1) / N)
        t = timed(run, sync=csync)
        print(f"baseline spectra lib cupy M {M} N {N} trials {T} seconds_median {t:.4f} matrices_per_second {T / t:.4g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
