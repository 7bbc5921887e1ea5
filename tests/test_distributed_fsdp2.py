"""FSDP2 (``fully_shard``) under loom, on 2 gloo ranks: sharded layers compile; a whole sharded model falls
back around FSDP's hooks, which ``explain`` names; never a wrong gradient (losses and shards as eager FSDP2).
"""

from __future__ import annotations

import dist_cases as cases
import pytest
import torch

pytestmark = pytest.mark.skipif(not torch.distributed.is_available(), reason="torch.distributed is not built")


@pytest.mark.parametrize("name", list(cases.FSDP2_SCENARIOS))
def test_fsdp2_trains_like_eager_fsdp2(name):
    for rank in (0, 1):
        reference, compiled, stats = cases.outcome(f"fsdp2 {name}", rank)
        for want, got in zip(reference["losses"] + reference["params"], compiled["losses"] + compiled["params"],
                             strict=True):
            assert torch.equal(want, got), f"rank {rank}, {name}"
        if name.startswith("layers"):
            # Three sharded Linears of two shapes: every one compiled, none broke.
            assert stats["graphs"] == 3 and stats["graph_breaks"] == 0, stats
        else:
            assert stats["graph_breaks"] >= 1, stats


def test_explain_names_the_fsdp_hooks_a_whole_sharded_model_breaks_at():
    report = cases.outcome("fsdp2 explain whole", 0)
    assert "calling FSDPLinear: the module has hooks registered" in report, report
