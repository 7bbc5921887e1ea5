"""A training script as a user writes it, launched by ``test_distributed_launch.py`` under torchrun.

It reads its rank from torchrun's environment, trains a DDP model compiled with loom for a few steps and
writes its losses and loom's counters to ``<out_dir>/rank<N>.json``.
"""

import datetime
import json
import os
import sys

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

import loom


def main(out_dir: str) -> None:
    # A rank whose peer died fails within a minute instead of gloo's default half hour.
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
    ddp = DDP(model)
    step = loom.compile(ddp, backend=os.environ.get("LOOM_TEST_BACKEND", "eager"))
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.1)
    losses = []
    for i in range(3):
        g = torch.Generator().manual_seed(10 * rank + i)
        x, y = torch.randn(4, 16, generator=g), torch.randn(4, 1, generator=g)
        loss = torch.nn.functional.mse_loss(step(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss.item())
    weights = [p.detach().flatten().tolist() for p in ddp.parameters()]
    with open(os.path.join(out_dir, f"rank{rank}.json"), "w") as f:
        json.dump({"rank": rank, "world_size": dist.get_world_size(), "losses": losses, "stats": loom.stats(),
                   "weights": weights}, f)
    dist.barrier()  # no rank tears its process group down while another still talks to it
    dist.destroy_process_group()
    # End here, before this frame's locals are freed: freeing DDP's reducer runs ~ProcessGroupGloo, which
    # joins Gloo's run-loop thread while holding the GIL that thread may need (a deadlock seen under load),
    # and Gloo's threads can outlive the interpreter's finalization and abort. Everything this rank reports
    # is written and closed above.
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1])
