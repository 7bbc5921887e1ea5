"""DistributedDataParallel under loom, on 2 gloo processes: captured in graphs, trained as eager DDP.

The scenarios run in ``dist_cases`` (one spawn of the ranks for the whole suite); each test here
asserts on what the ranks sent back, compared with eager DDP trained on the same seeds and batches.
"""

from __future__ import annotations

from typing import Any

import dist_cases as cases
import pytest
import torch

pytestmark = pytest.mark.skipif(not torch.distributed.is_available(), reason="torch.distributed is not built")


def _assert_same_training(name: str, reference: dict[str, Any], compiled: dict[str, Any], exact: bool) -> None:
    pairs = list(zip(reference["losses"], compiled["losses"])) + list(zip(reference["params"], compiled["params"]))
    assert len(pairs) == len(reference["losses"]) + len(reference["params"])
    for want, got in pairs:
        if exact:
            assert torch.equal(want, got), f"{name}: compiled DDP differs from eager DDP"
        else:
            torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5, msg=f"{name}: compiled DDP differs")
    assert reference["grads_none"] == compiled["grads_none"], name


@pytest.mark.parametrize("name", list(cases.EAGER_SCENARIOS))
def test_ddp_eager_backend_trains_bitwise_like_eager_ddp(name):
    for rank in (0, 1):
        reference, compiled, stats = cases.outcome(f"ddp {name}", rank)
        _assert_same_training(f"rank {rank}, {name}", reference, compiled, exact=True)
        assert stats["graphs"] >= 1, f"{name}: nothing was captured ({stats})"
        assert stats["graph_breaks"] == 0 and stats["recompiles"] == 0, f"{name}: {stats}"
    # The ranks saw different batches, so their losses differ; DDP keeps their parameters equal.
    rank0, rank1 = cases.outcome(f"ddp {name}", 0)[1], cases.outcome(f"ddp {name}", 1)[1]
    assert any(not torch.equal(a, b) for a, b in zip(rank0["losses"], rank1["losses"]))
    for a, b in zip(rank0["params"], rank1["params"]):
        assert torch.equal(a, b), name


def test_ddp_find_unused_parameters_leaves_the_unused_head_without_grad():
    _, compiled, _ = cases.outcome("ddp find_unused_parameters", 0)
    assert compiled["grads_none"][-2:] == [True, True]


@pytest.mark.parametrize("name", list(cases.AOT_SCENARIOS))
def test_ddp_aot_backends_train_like_eager_ddp(name):
    for rank in (0, 1):
        reference, compiled, stats = cases.outcome(f"ddp {name}", rank)
        _assert_same_training(f"rank {rank}, {name}", reference, compiled, exact=False)
        assert stats["graphs"] >= 1 and stats["graph_breaks"] == 0, f"{name}: {stats}"


def test_a_backward_in_the_compiled_frame_stays_a_break_under_ddp_and_all_reduces():
    for rank in (0, 1):
        (want, _), (got, reasons) = cases.outcome("ddp backward in frame", rank)
        for a, b in zip(got, want):
            torch.testing.assert_close(a, b)
        assert any("process group of several ranks" in r for r in reasons), reasons
    assert all(torch.equal(a, b) for a, b in zip(cases.outcome("ddp backward in frame", 0)[1][0],
                                                 cases.outcome("ddp backward in frame", 1)[1][0]))


def test_explain_shows_the_graph_split_at_ddp_buckets():
    report, graph_count = cases.outcome("ddp explain split", 0)
    assert graph_count == 1, report
    # 9 linears' parameters (4224 bytes a layer) in ~4 KB buckets: the one graph runs as 4 compiled pieces,
    # the last one holding the last two layers, as DDP's first bucket does.
    assert "DDP: split into 4 graphs at gradient-bucket boundaries" in report, report
    assert "piece 3: 3 ops, 4 parameters" in report and "l_self_8_weight" in report, report


def test_ranks_compiling_with_different_backends_get_a_clear_error():
    for rank in (0, 1):
        message = cases.outcome("ddp mismatched backends", rank)
        assert message is not None, "no error"
        assert "rank 0: backend='eager'" in message and "rank 1: backend='aot_eager'" in message, message


def test_compiling_ddp_without_a_process_group_is_a_clear_error():
    for rank in (0, 1):
        message = cases.outcome("ddp without process group", rank)
        assert message is not None and "init_process_group" in message, message
