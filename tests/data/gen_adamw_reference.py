#!/usr/bin/env python3
"""torch.optim.AdamW over three steps, the reference for moelab's AdamW (moe/adamw.hpp).

Writes tests/data/adamw_torch_reference.txt, read by tests/moe/teacher_student_test.cpp. One parameter
vector of 7 doubles (moelab's AVX2 loop takes 4 at a time, so both its vector body and its scalar tail
are covered) takes 3 AdamW steps with three different gradients. moelab applies a cosine learning-rate
decay inside its AdamW (lr_t = lr (f + (1 - f) (1 + cos(pi t / T)) / 2) for the step t = 0 .. T-1 being
taken, f = final_lr_fraction, T = total_steps), so torch gets the same schedule through
torch.optim.lr_scheduler.LambdaLR (stepped after each optimizer step, as torch documents). Everything
is float64; torch's non-capturable single-tensor path computes the bias corrections 1 - beta^step in
Python floats. At steps 2 and 3 the bias corrections differ from step 1's, so a wrong exponent shows.

Run: /usr/bin/python3 tests/data/gen_adamw_reference.py > tests/data/adamw_torch_reference.txt
(Debian 12: apt-get install python3-torch.)
"""
import math

import torch

lr, beta1, beta2, eps, weight_decay = 0.1, 0.9, 0.999, 1e-8, 0.05
final_fraction, total_steps = 0.1, 3

theta0 = [1.25, -0.75, 0.5, -1.5, 2.0, 0.875, -0.625]
# Different magnitudes and signs per step, so that the update is not lr sign(g) after step 1.
grads = [
    [0.5, -0.25, 1.5, 0.125, -2.0, 0.75, -0.0625],
    [-0.3, 0.8, 0.05, -1.1, 0.4, -0.9, 1.7],
    [1.2, 0.1, -0.7, 0.6, -0.2, 0.35, 0.45],
]

theta = torch.tensor(theta0, dtype=torch.float64, requires_grad=True)
opt = torch.optim.AdamW([theta], lr=lr, betas=(beta1, beta2), eps=eps, weight_decay=weight_decay,
                        foreach=False, capturable=False)
sched = torch.optim.lr_scheduler.LambdaLR(
    opt, lambda t: final_fraction + (1.0 - final_fraction) * 0.5 * (1.0 + math.cos(math.pi * min(1.0, t / total_steps))))


def line(key, values):
    print(key, " ".join(repr(float(v)) for v in values))


print("# torch.optim.AdamW, float64, torch " + torch.__version__ + " (tests/data/gen_adamw_reference.py)")
line("config", [lr, beta1, beta2, eps, weight_decay, final_fraction, total_steps])
line("theta_0", theta0)
for step, g in enumerate(grads, start=1):
    lr_used = opt.param_groups[0]["lr"]
    theta.grad = torch.tensor(g, dtype=torch.float64)
    opt.step()
    sched.step()
    state = opt.state[theta]
    line(f"grad_{step}", g)
    line(f"lr_{step}", [lr_used])
    line(f"theta_{step}", theta.detach().tolist())
    line(f"m_{step}", state["exp_avg"].tolist())
    line(f"v_{step}", state["exp_avg_sq"].tolist())
