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


@pytest.mark.parametrize("backend", cases.COLLECTIVE_BACKENDS)
def test_list_forms_all_to_all_and_legacy_aliases_are_captured(backend):
    for rank in (0, 1):
        reference, compiled, stats, report = cases.outcome(f"more collectives {backend}", rank)
        assert stats["graphs"] == 1 and stats["graph_breaks"] == 0, stats
        _assert_equal(backend, reference, compiled)
        for op in ("all_gather_into_tensor", "reduce_scatter_tensor", "all_to_all_single", "wait_tensor"):
            assert f"_c10d_functional.{op}" in report, report


def test_list_forms_and_all_to_all_results_are_the_collectives():
    # x = [0..3] + rank, y = 2x: what each collective computes over the two ranks, on each rank.
    ys = [torch.arange(4.0) * 2, torch.arange(4.0) * 2 + 2]
    for rank in (0, 1):
        _, got, _, _ = cases.outcome("more collectives eager", rank)
        (gathered0, gathered1, exchanged, scattered, gathered_base, scattered_base, scalar0, scalar1,
         swapped0, swapped1, gathered_single, scattered_single, ranked) = got
        assert torch.equal(gathered0, ys[0] + 2) and torch.equal(gathered1, ys[1] + 1)
        assert torch.equal(exchanged, torch.cat([ys[0][2 * rank:2 * rank + 2], ys[1][2 * rank:2 * rank + 2]]))
        pieces = [torch.maximum(ys[0][:2] + 1, ys[1][:2] + 1), torch.maximum(ys[0][2:] * 3, ys[1][2:] * 3)]
        assert torch.equal(scattered, pieces[rank])
        assert torch.equal(gathered_base, torch.cat(ys))
        assert torch.equal(scattered_base, (ys[0] + ys[1])[2 * rank:2 * rank + 2])
        assert (scalar0.item(), scalar1.item()) == (ys[0].sum().item(), ys[1].sum().item())
        # all_to_all: slot j holds what rank j sent this rank (to rank 0: y[:2] - 1, to rank 1: y[2:] + 5).
        assert torch.equal(swapped0, ys[0][:2] - 1 if rank == 0 else ys[0][2:] + 5)
        assert torch.equal(swapped1, ys[1][:2] - 1 if rank == 0 else ys[1][2:] + 5)
        assert torch.equal(gathered_single, torch.cat(ys) - 1)
        assert torch.equal(scattered_single, (ys[0] + ys[1] + 4)[2 * rank:2 * rank + 2])
        assert torch.equal(ranked, ys[rank] + rank)


@pytest.mark.parametrize("backend", cases.COLLECTIVE_BACKENDS)
def test_uneven_all_to_all_single_writes_into_the_callers_tensors(backend):
    # Python-int split sizes differing per rank; the output tensor, the gathered list's elements and the
    # reduce-scatter output are the caller's: the compiled call must leave them as eager does.
    for rank in (0, 1):
        reference, compiled, stats = cases.outcome(f"user tensors {backend}", rank)
        assert stats["graphs"] == 1 and stats["graph_breaks"] == 0, stats
        (ref_sum, ref_out, _, _, _, ref_gathered, ref_scattered) = reference
        (got_sum, got_out, _, _, _, got_gathered, got_scattered) = compiled
        _assert_equal(backend, [ref_sum, ref_out, *ref_gathered, ref_scattered],
                      [got_sum, got_out, *got_gathered, got_scattered])
    # Rank 0 got its own first element and rank 1's first two, doubled.
    assert torch.equal(cases.outcome("user tensors eager", 0)[1][1], torch.tensor([0.0, 20.0, 22.0]))


def test_async_or_element_split_all_to_all_single_breaks_and_runs_natively():
    for name in ("all_to_all_single async_op", "all_to_all_single by elements"):
        for rank in (0, 1):
            reference, compiled, stats = cases.outcome(name, rank)
            _assert_equal("eager", reference, compiled)
            assert stats["graph_breaks"] >= 1, (name, stats)


def _assert_equal(backend, reference, compiled):
    for want, got in zip(reference, compiled, strict=True):
        if backend == "triton":
            torch.testing.assert_close(got, want)
        else:
            assert torch.equal(want, got)


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
