"""DistributedDataParallel under loom, on 2 gloo processes: captured in graphs, same training as eager DDP.

Each test spawns the ranks once and runs several scenarios there (start-up is the expensive part); the
results come back to the parent and are compared with eager DDP trained on the same seeds and batches.
"""

from __future__ import annotations

from typing import Any

import pytest
import torch

import dist_harness as harness

pytestmark = pytest.mark.skipif(not torch.distributed.is_available(), reason="torch.distributed is not built")

#: name -> (model, how loom wraps it, DDP keyword arguments, micro-batches per step)
EAGER_SCENARIOS: dict[str, tuple[str, str, dict[str, Any], int]] = {
    "mlp outer": ("mlp", "outer", {}, 1),
    "mlp inner": ("mlp", "inner", {}, 1),
    "transformer outer": ("transformer", "outer", {}, 1),
    "find_unused_parameters": ("two_heads", "outer", {"find_unused_parameters": True}, 1),
    "no_sync accumulation": ("mlp", "outer", {}, 2),
    "static_graph": ("mlp", "outer", {"static_graph": True}, 1),
}

#: Small buckets, so that the MLP's parameters fill several (and the graph is split).
SMALL_BUCKETS = {"bucket_cap_mb": 0.004}

AOT_SCENARIOS: dict[str, tuple[str, str, str, dict[str, Any], int]] = {
    "aot_eager outer": ("mlp", "outer", "aot_eager", SMALL_BUCKETS, 1),
    "aot_eager inner": ("mlp", "inner", "aot_eager", SMALL_BUCKETS, 1),
    "aot_eager no_sync": ("mlp", "outer", "aot_eager", SMALL_BUCKETS, 2),
    "aot_eager find_unused_parameters": ("two_heads", "outer", "aot_eager",
                                         {**SMALL_BUCKETS, "find_unused_parameters": True}, 1),
    "triton outer": ("mlp", "outer", "triton", SMALL_BUCKETS, 1),
}


def eager_backend_worker(rank: int, world_size: int) -> dict[str, Any]:
    import loom

    out: dict[str, Any] = {}
    for name, (kind, how, ddp_kwargs, accumulate) in EAGER_SCENARIOS.items():
        loom.reset()
        reference = harness.train_ddp(rank, kind, None, accumulate=accumulate, **ddp_kwargs)
        compiled = harness.train_ddp(rank, kind, how, "eager", accumulate=accumulate, **ddp_kwargs)
        out[name] = (reference, compiled, loom.stats())
    return out


def aot_backend_worker(rank: int, world_size: int) -> dict[str, Any]:
    import loom
    from torch.nn.parallel import DistributedDataParallel as DDP

    out: dict[str, Any] = {}
    for name, (kind, how, backend, ddp_kwargs, accumulate) in AOT_SCENARIOS.items():
        loom.reset()
        reference = harness.train_ddp(rank, kind, None, accumulate=accumulate, **ddp_kwargs)
        compiled = harness.train_ddp(rank, kind, how, backend, accumulate=accumulate, **ddp_kwargs)
        out[name] = (reference, compiled, loom.stats())
    torch.manual_seed(0)
    ddp = DDP(harness.mlp(), **SMALL_BUCKETS)
    x, _ = harness.batch("mlp", rank, 0)
    report = loom.explain(ddp, backend="aot_eager")(x)
    out["explain"] = str(report)
    out["explain_graphs"] = report.graph_count
    return out


def _assert_same_training(name: str, reference: dict[str, Any], compiled: dict[str, Any], exact: bool) -> None:
    pairs = list(zip(reference["losses"], compiled["losses"])) + list(zip(reference["params"], compiled["params"]))
    assert len(pairs) == len(reference["losses"]) + len(reference["params"])
    for want, got in pairs:
        if exact:
            assert torch.equal(want, got), f"{name}: compiled DDP differs from eager DDP"
        else:
            torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5, msg=f"{name}: compiled DDP differs")
    assert reference["grads_none"] == compiled["grads_none"], name


def test_ddp_eager_backend_matches_eager_ddp_bitwise():
    ranks = harness.run_ranks(eager_backend_worker, timeout=150)
    for rank, out in enumerate(ranks):
        for name in EAGER_SCENARIOS:
            reference, compiled, stats = out[name]
            _assert_same_training(f"rank {rank}, {name}", reference, compiled, exact=True)
            assert stats["graphs"] >= 1, f"{name}: nothing was captured ({stats})"
            assert stats["graph_breaks"] == 0, f"{name}: {stats}"
            assert stats["recompiles"] == 0, f"{name}: {stats}"
    # Both ranks saw different data, so their losses differ, but DDP keeps their parameters equal.
    for name in EAGER_SCENARIOS:
        for a, b in zip(ranks[0][name][1]["params"], ranks[1][name][1]["params"]):
            assert torch.equal(a, b), name
    # The unused head got no gradient, exactly as under eager DDP.
    assert ranks[0]["find_unused_parameters"][1]["grads_none"][-2:] == [True, True]


def test_ddp_aot_backends_split_at_buckets_and_match_eager_ddp():
    ranks = harness.run_ranks(aot_backend_worker, timeout=150)
    for rank, out in enumerate(ranks):
        for name in AOT_SCENARIOS:
            reference, compiled, stats = out[name]
            _assert_same_training(f"rank {rank}, {name}", reference, compiled, exact=False)
            assert stats["graphs"] >= 1 and stats["graph_breaks"] == 0, f"{name}: {stats}"
    report = ranks[0]["explain"]
    assert ranks[0]["explain_graphs"] == 1, report
    # 9 linears' worth of parameters in ~4 KB buckets: the one graph runs as 4 compiled pieces.
    assert "DDP: split into 4 graphs at gradient-bucket boundaries" in report, report
    assert "piece 3:" in report and "l_self_8_weight" in report, report
