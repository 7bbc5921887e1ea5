"""torch.distributed collectives inside compiled code: functional collectives in the graph, eager's results.

Run on 2 gloo ranks by ``dist_cases`` (one spawn for the whole distributed suite).
"""

from __future__ import annotations

import dist_cases as cases
import pytest
import torch

pytestmark = pytest.mark.skipif(not torch.distributed.is_available(), reason="torch.distributed is not built")


@pytest.mark.parametrize("backend", cases.COLLECTIVE_BACKENDS)
def test_collectives_are_captured_as_functional_collectives(backend):
    for rank in (0, 1):
        reference, compiled, stats, report = cases.outcome(f"collectives {backend}", rank)
        assert stats["graphs"] == 1 and stats["graph_breaks"] == 0, stats
        for want, got in zip(reference, compiled, strict=True):
            if backend == "triton":
                torch.testing.assert_close(got, want)
            else:
                assert torch.equal(want, got)
        for op in ("all_reduce", "all_gather_into_tensor", "reduce_scatter_tensor", "broadcast", "wait_tensor"):
            assert f"_c10d_functional.{op}" in report, report


def test_collective_results_are_the_collectives():
    # Not only equal to eager: what the collectives compute over the two ranks' inputs (x = [0..3] + rank).
    for rank in (0, 1):
        _, (sin, gathered, scattered, broadcast), _, _ = cases.outcome("collectives eager", rank)
        reduced = (torch.arange(4.0) * 2) * 2 + 2  # 2x + 2(x + 1) summed over ranks 0 and 1
        assert torch.equal(broadcast, reduced)
        assert torch.equal(gathered, torch.cat([reduced + 1, reduced + 1]))
        assert torch.equal(scattered, reduced + 1)
        assert torch.equal(sin, reduced.sin())


def test_async_collective_breaks_the_graph_and_runs_natively():
    for rank in (0, 1):
        reference, compiled, stats = cases.outcome("collectives async_op", rank)
        assert torch.equal(reference, compiled)
        # The call breaks the graph, and so does Work.wait() on the handle it returned.
        assert stats["graphs"] >= 1 and stats["graph_breaks"] >= 1, stats


def test_ranks_recompile_alike():
    stats = [cases.outcome("recompiles alike", rank) for rank in (0, 1)]
    assert stats[0]["recompiles"] == stats[1]["recompiles"] >= 1, stats
    assert stats[0]["graphs"] == stats[1]["graphs"], stats


def test_a_rank_recompiling_alone_times_out_cleanly_instead_of_hanging():
    error, stats = cases.outcome("lone recompile", 0)
    assert stats["recompiles"] == 1, stats
    assert error is not None and "imed out" in error, error  # gloo: "Timed out waiting ..."
    assert cases.outcome("lone recompile", 1)[0] is None


def test_a_collective_without_process_group_fails_as_in_eager():
    for rank in (0, 1):
        eager, compiled = cases.outcome("collective without process group", rank)
        assert eager == compiled, (eager, compiled)
