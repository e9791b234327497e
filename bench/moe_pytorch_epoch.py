#!/usr/bin/python3
"""One "epoch" (a fixed number of optimizer steps) of the granularity paper's Fig. 2 setting in PyTorch
the same computation as bench/moe_epoch.cpp: teacher 16e8a, student 8e4a,
d = 256, teacher kw = 256, student k'w' = 320, ReLU experts without biases, softmax over the k
selected logits, batch 2048, float32, fresh N(0, I) inputs every step, MSE, AdamW + cosine decay.

Two variants of the MoE layer:
  all     as the public teacher-student script does: every expert evaluated on every input, the
          outputs stacked (batch x m x d), then the k selected ones gathered and weighted;
  active  as a careful user would: per expert, the inputs routed to it are gathered (index_select),
          the expert runs on them only, and the weighted outputs are scattered back (index_add_).
Prints one line per variant for bench/moe_side_by_side.sh, and torch.mm's float GEMM rate.
  moe_pytorch_epoch.py --threads T --steps S [--variant all,active]
  moe_pytorch_epoch.py --device cuda --steps S [--tf32]   (W4: the device baseline)
On --device cuda every tensor lives on the GPU, the timed region is closed by torch.cuda.synchronize(),
and float32 matmuls run with TF32 off (torch.backends.cuda.matmul.allow_tf32 = False) unless --tf32,
as moelab's device trainer does.
"""
import argparse
import time

import torch


class Expert(torch.nn.Module):
    def __init__(self, d, w):
        super().__init__()
        self.fc1 = torch.nn.Linear(d, w, bias=False)
        self.fc2 = torch.nn.Linear(w, d, bias=False)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class MoE(torch.nn.Module):
    def __init__(self, m, k, w, d, variant):
        super().__init__()
        self.m, self.k, self.variant = m, k, variant
        self.router = torch.nn.Linear(d, m, bias=False)
        self.experts = torch.nn.ModuleList([Expert(d, w) for _ in range(m)])

    def forward(self, x):
        logits = self.router(x)                       # batch x m
        top, idx = torch.topk(logits, self.k, dim=1)  # batch x k
        g = torch.softmax(top, dim=1)                 # weights over the selected logits
        if self.variant == "all":
            out = torch.stack([e(x) for e in self.experts], dim=1)                      # batch x m x d
            sel = torch.gather(out, 1, idx.unsqueeze(-1).expand(-1, -1, out.shape[-1]))  # batch x k x d
            return (g.unsqueeze(-1) * sel).sum(dim=1)
        y = torch.zeros_like(x)
        flat_idx = idx.reshape(-1)
        rows = torch.arange(x.shape[0], device=x.device).repeat_interleave(self.k)
        flat_g = g.reshape(-1)
        for j, e in enumerate(self.experts):
            sel = (flat_idx == j).nonzero(as_tuple=True)[0]
            if sel.numel() == 0:
                continue
            r = rows[sel]
            y = y.index_add(0, r, e(x.index_select(0, r)) * flat_g[sel].unsqueeze(1))
        return y


def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize()


def gemm_rate(device, n=2000):
    a, b = torch.randn(n, n, device=device), torch.randn(n, n, device=device)
    torch.mm(a, b)
    sync(device)
    reps, t0 = 0, time.perf_counter()
    while True:
        torch.mm(a, b)
        reps += 1
        sync(device)
        s = time.perf_counter() - t0
        if s > 0.5:
            return 2.0 * n ** 3 * reps / s / 1e9


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--d", type=int, default=256)
    ap.add_argument("--batch", type=int, default=2048)
    ap.add_argument("--variant", default="all,active")
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--tf32", action="store_true", help="cuda: float32 matmuls in TF32")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    device = torch.device(a.device)
    if device.type == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = a.tf32
        torch.backends.cudnn.allow_tf32 = a.tf32
    torch.manual_seed(0)
    d = a.d
    for variant in a.variant.split(","):
        teacher = MoE(16, 8, d // 8, d, variant).to(device)
        student = MoE(8, 4, d * 5 // 4 // 4, d, variant).to(device)
        for p in teacher.parameters():
            p.requires_grad_(False)
        total = a.warmup + a.steps
        opt = torch.optim.AdamW(student.parameters(), lr=1e-2, weight_decay=0.0)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=total)
        loss_fn = torch.nn.MSELoss()
        t0 = None
        for step in range(total):
            if step == a.warmup:
                sync(device)
                t0 = time.perf_counter()
            x = torch.randn(a.batch, d, device=device)
            with torch.no_grad():
                t = teacher(x)
            loss = loss_fn(student(x), t)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
        sync(device)
        s = time.perf_counter() - t0
        fwd = lambda m, k, w: 2.0 * m * d + k * 4.0 * w * d
        flops = fwd(16, 8, d // 8) + 3.0 * fwd(8, 4, d * 5 // 4 // 4)
        print(f"pytorch variant {variant} device {a.device} tf32 {int(a.tf32)} threads {a.threads} steps {a.steps} batch {a.batch} d {d} "
              f"step_ms {1e3 * s / a.steps:.3f} samples_per_s {a.batch * a.steps / s:.1f} "
              f"useful_gflops {flops * a.batch * a.steps / s / 1e9:.2f} last_loss {loss.item():.6g}", flush=True)
    print(f"pytorch_gemm_peak scalar float n 2000 device {a.device} tf32 {int(a.tf32)} threads {a.threads} gflops {gemm_rate(device):.2f}")


if __name__ == "__main__":
    main()
