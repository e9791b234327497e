#!/usr/bin/python3
"""The runs of a bench_moe_ensemble dump (bench/moe_ensemble.cpp --dump DIR) trained in PyTorch, batched
on one device as a careful user would write it: the runs of one shape (m, k, w) stacked (parameters
[runs, m, ...]), every expert of every run evaluated on every input with torch.matmul over (run, expert),
gated by the top-k softmax weights (zero for the unselected experts: the "all experts" form, which
for m = 2k does twice the active-expert work and needs no gather; see moe_forward), routing = the k largest
router logits (ties towards the lower index: a stable sort), softmax over those k logits, ReLU experts
without biases, MSE averaged over all entries, torch.optim.AdamW (one optimizer per learning rate)
with moelab's cosine schedule (adamw.hpp: lr_t = lr (f + (1 - f)(1 + cos(pi min(1, t / T))) / 2),
no warmup, LambdaLR). The initial parameters are the dump's (the same model instances as moelab);
inputs x ~ N(0, I_d) come fresh every step from torch's generator (not moelab's Philox stream), one
batch per data group as in moelab, so the losses agree with moelab's within the run-to-run spread.

  torch_ensemble.py --dump DIR [--device cpu|cuda] [--steps S] [--warmup W] [--tf32] [--threads T]
  torch_ensemble.py --dump DIR --check      (needs bench_moe_ensemble --dump DIR --dump-batch)

Prints "torch_ensemble ... s_per_step X cpu_s_per_step C useful_gflops Y" (wall and process CPU
seconds per step of all runs; the GFLOP/s from the wall time): the useful flops are moelab's count
(moe::step_flops summed over runs: active experts only, 6 per student parameter and sample, 2 per
teacher parameter, the teacher counted per run), not the flops this form executes (printed as
executed_gflops). Writes DIR/torch_losses.tsv (run, step, loss at every 10th step and the last) and
DIR/torch_final.tsv (run, normalized test MSE on fresh N(0, I) inputs, test_size of the manifest,
nMSE = test MSE per entry * d_out / mean ||teacher(x)||^2, as teacher_student.cpp).
--check: step 0 on moelab's own batch (batch_<g>.x.f32): the loss of every run must equal moelab's to
1e-5 relative and every student after one AdamW step moelab's to 1e-4 relative (max |difference| over
max |parameter| of the run; the entry-by-entry worst is printed beside it).
"""
import argparse
import csv
import math
import os
import sys
import time

import numpy as np
import torch


def read_manifest(path):
    with open(path) as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    ints = ("run", "group", "trial", "teacher_m", "teacher_k", "teacher_w", "student_m", "student_k", "student_w", "d", "d_out", "batch",
            "steps", "cosine_steps", "lr_warmup_steps", "test_size", "router_bias", "expert_bias")
    for r in rows:
        for k in r:
            if not k.startswith("seed_"):
                r[k] = int(r[k]) if k in ints else float(r[k])
        if r["router_bias"] or r["expert_bias"] or r["lr_warmup_steps"]:
            sys.exit("torch_ensemble.py: the Fig. 2 family has no biases and moelab's schedule no warmup; this dump has")
    return rows


def load_model(path, m, w, d, d_out):
    """A dump file: router [m, d], then per expert fc1.weight [w, d], fc2.weight [d_out, w] (row-major);
    returns router [m, d], fc1 weights [m, w, d] and the fc2 weights transposed [m, w, d_out]."""
    a = np.fromfile(path, dtype="<f4")
    e = w * d + d_out * w
    assert a.size == m * d + m * e, f"{path}: {a.size} floats, expected {m * d + m * e}"
    router = a[:m * d].reshape(m, d)
    ex = a[m * d:].reshape(m, e)
    return router, ex[:, :w * d].reshape(m, w, d), ex[:, w * d:].reshape(m, d_out, w).transpose(0, 2, 1)  # fc2.weight^T


def moe_forward(x, router, w1, w2t, k):
    """x [R, n, d]; router [R, m, d], w1 [R, m, w, d] (fc1.weight), w2t [R, m, w, d_out] (fc2.weight
    transposed) -> sum_j g_j E_j(x) [R, n, d_out]. Every expert on every input, as two batched GEMMs
    per run: the experts' first layers side by side (x W1^T: R x n x m w), then the hidden units of
    expert j scaled by g_j (zero unless j is among the k selected) through the stacked second layers
    (g_j W2_j h_j = W2_j (g_j h_j))."""
    R, n, _ = x.shape
    m, w = w1.shape[1], w1.shape[2]
    logits = torch.bmm(x, router.transpose(1, 2))                     # R x n x m
    top, idx = torch.sort(logits, dim=2, descending=True, stable=True)
    gates = torch.zeros_like(logits).scatter(2, idx[..., :k], torch.softmax(top[..., :k], dim=2))
    h = torch.relu(torch.bmm(x, w1.reshape(R, m * w, -1).transpose(1, 2)))   # R x n x m w
    h = (h.view(R, n, m, w) * gates.unsqueeze(3)).view(R, n, m * w)
    return torch.bmm(h, w2t.reshape(R, m * w, -1))


class Stack:
    """Models of one shape (m, k, w), stacked along a leading run axis; `parts` are leaf tensors
    (one per learning rate for students, so that each AdamW sees only its rate's runs)."""

    def __init__(self, k, parts, groups):
        self.k, self.parts, self.groups = k, parts, groups  # groups[i]: data group of stacked model i

    def params(self):
        if len(self.parts) == 1:
            return self.parts[0]
        return [torch.cat([p[i] for p in self.parts]) for i in range(3)]

    def __call__(self, x):
        return moe_forward(x, *self.params(), self.k)


class TorchEnsemble:
    def __init__(self, dump, rows, device):
        self.rows, self.device = rows, device
        self.groups = max(r["group"] for r in rows) + 1
        d, dev = rows[0]["d"], device
        leaf = lambda a, grad: torch.tensor(a, device=dev).requires_grad_(grad)
        first = {}
        for r in rows:
            first.setdefault(r["group"], r)
        self.teachers = {}  # shape -> Stack of the teachers of that shape
        by_shape = {}
        for g in range(self.groups):
            r = first[g]
            by_shape.setdefault((r["teacher_m"], r["teacher_k"], r["teacher_w"]), []).append(g)
        for (m, k, w), gs in by_shape.items():
            models = [load_model(os.path.join(dump, f"teacher_{g}.f32"), m, w, d, rows[0]["d_out"]) for g in gs]
            self.teachers[(m, k, w)] = Stack(k, [[leaf(np.stack([mo[i] for mo in models]), False) for i in range(3)]], gs)
        self.students, self.order = [], []  # order: run ids in stacked order, class after class
        self.opt_params = {}                # lr -> leaf tensors
        by_shape = {}
        for r in rows:
            by_shape.setdefault((r["student_m"], r["student_k"], r["student_w"]), []).append(r)
        for (m, k, w), rs in by_shape.items():
            parts, groups = [], []
            for lr in sorted({r["lr"] for r in rs}):
                sub = [r for r in rs if r["lr"] == lr]
                models = [load_model(os.path.join(dump, f"student_{r['run']}.f32"), m, w, d, r["d_out"]) for r in sub]
                part = [leaf(np.stack([mo[i] for mo in models]), True) for i in range(3)]
                parts.append(part)
                self.opt_params.setdefault(lr, []).extend(part)
                groups += [r["group"] for r in sub]
                self.order += [r["run"] for r in sub]
            self.students.append(Stack(k, parts, groups))
        T = rows[0]["cosine_steps"]
        f = rows[0]["final_lr_fraction"]
        r0 = rows[0]
        self.opts, self.scheds = [], []
        for lr, ps in self.opt_params.items():
            opt = torch.optim.AdamW(ps, lr=lr, betas=(r0["beta1"], r0["beta2"]), eps=r0["eps"], weight_decay=r0["weight_decay"])
            self.opts.append(opt)
            # moelab's cosine_lr (the lr of step t, 0-based); LambdaLR multiplies the base lr by it.
            self.scheds.append(torch.optim.lr_scheduler.LambdaLR(opt, lambda t: f + (1 - f) * 0.5 * (1 + math.cos(math.pi * min(1.0, t / T)))))

    def targets(self, x):
        """x [G, n, d] (one batch per data group) -> the teachers' outputs [G, n, d_out]."""
        t = torch.empty(x.shape[0], x.shape[1], self.rows[0]["d_out"], device=self.device)
        for s in self.teachers.values():
            t[s.groups] = s(x[s.groups])
        return t

    def step(self, x):
        """One training step of every run on its group's batch; the losses [runs] in stacked order."""
        with torch.no_grad():
            t = self.targets(x)
        losses = [((s(x[s.groups]) - t[s.groups]) ** 2).mean(dim=(1, 2)) for s in self.students]
        for o in self.opts:
            o.zero_grad(set_to_none=True)
        loss = torch.cat(losses)
        loss.sum().backward()  # each run's gradient is that of its own mean loss
        for o, sc in zip(self.opts, self.scheds):
            o.step()
            sc.step()
        return loss.detach()

    @torch.no_grad()
    def test_nmse(self, size, chunk=4096):
        """Normalized test MSE per run (stacked order) on fresh N(0, I) inputs, `size` per group."""
        G, d = self.groups, self.rows[0]["d"]
        sq = torch.zeros(len(self.order), dtype=torch.float64, device=self.device)
        energy = torch.zeros(G, dtype=torch.float64, device=self.device)
        for i0 in range(0, size, chunk):
            x = torch.randn(G, min(chunk, size - i0), d, device=self.device)
            t = self.targets(x)
            energy += (t.double() ** 2).sum(dim=(1, 2))
            sq += torch.cat([((s(x[s.groups]) - t[s.groups]).double() ** 2).sum(dim=(1, 2)) for s in self.students])
        groups = torch.tensor(sum((s.groups for s in self.students), []), device=self.device)
        return (sq / energy[groups]).cpu().tolist()  # (sum sq / (n d_out)) * d_out / (energy / n)

    def student_torch_layout(self, run, grad=False):
        """The student of `run` (or its last gradient) flattened as the dump files are."""
        i = self.order.index(run)
        for part in (p for s in self.students for p in s.parts):
            if i < part[0].shape[0]:
                router, w1, w2t = ((t.grad if grad else t)[i].detach().cpu().numpy() for t in part)
                return np.concatenate([router.ravel()] + [np.concatenate([w1[j].ravel(), w2t[j].T.ravel()]) for j in range(w1.shape[0])])
            i -= part[0].shape[0]


def active_params(m, k, w, d, d_out):
    return (m * d if m > 1 else 0) + k * (w * d + d_out * w)


def flops(rows, active):
    """Per ensemble step: moe::step_flops summed over runs (active=True), or what this form executes."""
    total = 0.0
    for r in rows:
        kt, ks = (r["teacher_k"], r["student_k"]) if active else (r["teacher_m"], r["student_m"])
        total += r["batch"] * (6.0 * active_params(r["student_m"], ks, r["student_w"], r["d"], r["d_out"])
                               + 2.0 * active_params(r["teacher_m"], kt, r["teacher_w"], r["d"], r["d_out"]))
    return total


def rel(a, b):
    return abs(a - b) / abs(b)


def check(ens, dump, rows):
    """Step 0 on moelab's batch: losses to 1e-5 relative, parameters after the step to 1e-4 relative."""
    n, d = rows[0]["batch"], rows[0]["d"]
    x = torch.stack([torch.from_numpy(np.fromfile(os.path.join(dump, f"batch_{g}.x.f32"), dtype="<f4").reshape(n, d))
                     for g in range(ens.groups)]).to(ens.device)
    t_moelab = np.stack([np.fromfile(os.path.join(dump, f"batch_{g}.t.f32"), dtype="<f4").reshape(n, -1) for g in range(ens.groups)])
    with torch.no_grad():
        t = ens.targets(x).cpu().numpy()
    print(f"check teacher targets: max |torch - moelab| / max |moelab| = {np.abs(t - t_moelab).max() / np.abs(t_moelab).max():.3g}")
    with open(os.path.join(dump, "moelab_step0_loss.tsv")) as f:
        ref = {int(r["run"]): float(r["loss"]) for r in csv.DictReader(f, delimiter="\t")}
    loss = dict(zip(ens.order, ens.step(x).cpu().tolist()))
    worst_loss = max((rel(loss[r], ref[r]), r) for r in ref)
    # Parameters: relative to the scale of the run's parameter vector (max |a - b| / max |b|). An
    # entry-by-entry ratio is no criterion: a few parameters land within ~1e-6 of zero after the step
    # (theta0 ~ +-lr), and Adam's first step lr g / (|g| + eps) turns the float32 rounding of gradients
    # of size ~eps (sums of 256 samples in another order) into absolute differences ~1e-8; printed too.
    worst_param, worst_entry, worst_grad = (0.0, -1), (0.0, -1, 0.0), (0.0, -1)
    for r in ref:
        a = ens.student_torch_layout(r).astype(np.float64)
        b = np.fromfile(os.path.join(dump, f"student_{r}.step1.f32"), dtype="<f4").astype(np.float64)
        worst_param = max(worst_param, (np.abs(a - b).max() / np.abs(b).max(), r))
        e = np.abs(a - b) / np.maximum(np.abs(b), np.finfo(np.float64).tiny)
        i = int(np.argmax(e))
        worst_entry = max(worst_entry, (float(e[i]), r, float(b[i])))
        g = ens.student_torch_layout(r, grad=True).astype(np.float64)
        h = np.fromfile(os.path.join(dump, f"student_{r}.grad0.f32"), dtype="<f4").astype(np.float64)
        worst_grad = max(worst_grad, (np.abs(g - h).max() / np.abs(h).max(), r))
    print(f"check step-0 gradient (not asserted): worst max|torch - moelab| / max|moelab| {worst_grad[0]:.3g} (run {worst_grad[1]})")
    print(f"check step-0 loss, {len(ref)} runs: worst relative error {worst_loss[0]:.3g} (run {worst_loss[1]}; tolerance 1e-5)")
    print(f"check parameters after one AdamW step: worst max|torch - moelab| / max|moelab| {worst_param[0]:.3g} (run {worst_param[1]}; "
          f"tolerance 1e-4); entry by entry {worst_entry[0]:.3g} (run {worst_entry[1]}, at moelab value {worst_entry[2]:.3g})")
    ok = worst_loss[0] <= 1e-5 and worst_param[0] <= 1e-4
    print("check", "PASSED" if ok else "FAILED")
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dump", required=True, help="directory written by bench_moe_ensemble --dump")
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--steps", type=int, help="timed steps (default: the manifest's steps - warmup)")
    ap.add_argument("--warmup", type=int, default=2, help="untimed steps first")
    ap.add_argument("--tf32", action="store_true", help="cuda: float32 matmuls in TF32")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0, help="torch's generator (the inputs)")
    ap.add_argument("--check", action="store_true", help="step 0 on moelab's dumped batch against moelab's loss and parameters")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    device = torch.device(a.device)
    if device.type == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = a.tf32
        torch.backends.cudnn.allow_tf32 = a.tf32
    torch.manual_seed(a.seed)
    rows = read_manifest(os.path.join(a.dump, "manifest.tsv"))
    ens = TorchEnsemble(a.dump, rows, device)
    if a.check:
        sys.exit(0 if check(ens, a.dump, rows) else 1)
    total = rows[0]["steps"]
    steps = a.steps if a.steps is not None else total - a.warmup
    if steps < 1:
        sys.exit("torch_ensemble.py: no timed steps (--steps, or the manifest's steps minus --warmup)")
    if a.warmup + steps != total:
        print(f"note: {a.warmup + steps} steps of the manifest's {total}: the final test errors are not moelab's", file=sys.stderr)
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    G, n, d = ens.groups, rows[0]["batch"], rows[0]["d"]
    kept = []  # (step, losses) at every 10th step and the last; read back after the timed region
    for step in range(a.warmup + steps):
        if step == a.warmup:
            sync()
            t0, c0 = time.perf_counter(), time.process_time()
        loss = ens.step(torch.randn(G, n, d, device=device))
        if step % 10 == 0 or step == a.warmup + steps - 1:
            kept.append((step, loss))
    sync()
    s, cpu = time.perf_counter() - t0, time.process_time() - c0
    useful, executed = flops(rows, True), flops(rows, False)
    print(f"torch_ensemble device {a.device} tf32 {int(a.tf32)} threads {a.threads} runs {len(rows)} groups {G} steps {steps} batch {n} d {d} "
          f"s_per_step {s / steps:.6g} cpu_s_per_step {cpu / steps:.6g} useful_gflops {useful * steps / s / 1e9:.4g} flops_per_step {useful:.6g} "
          f"executed_gflops {executed * steps / s / 1e9:.4g} torch {torch.__version__}", flush=True)
    with open(os.path.join(a.dump, "torch_losses.tsv"), "w") as f:
        f.write("run\tstep\tloss\n")
        lines = [(r, step, v) for step, loss in kept for r, v in zip(ens.order, loss.cpu().tolist())]
        f.writelines(f"{r}\t{step}\t{v:.9g}\n" for r, step, v in sorted(lines))
    nmse = dict(zip(ens.order, ens.test_nmse(rows[0]["test_size"])))
    with open(os.path.join(a.dump, "torch_final.tsv"), "w") as f:
        f.write("run\ttest_nmse\n")
        f.writelines(f"{r}\t{nmse[r]:.9g}\n" for r in sorted(nmse))


if __name__ == "__main__":
    main()
