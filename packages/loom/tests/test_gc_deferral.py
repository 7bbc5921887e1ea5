"""Full garbage collections wait while a frame compiles; the program's thresholds come back after."""

from __future__ import annotations

import gc
import threading

import pytest
import torch

import loom
from loom import gc_deferral


@pytest.fixture(autouse=True)
def _thresholds_restored():
    saved = gc.get_threshold()
    yield
    assert gc_deferral.depth() == 0
    gc.set_threshold(*saved)


def test_the_oldest_threshold_is_raised_inside_and_restored_after():
    gc.set_threshold(700, 10, 10)
    with gc_deferral.full_collections_deferred():
        young0, young1, oldest = gc.get_threshold()
        assert (young0, young1) == (700, 10)  # the young generations still collect
        assert oldest > 10**6
    assert gc.get_threshold() == (700, 10, 10)


def test_nested_and_failing_blocks_restore_once_the_last_leaves():
    gc.set_threshold(500, 7, 9)
    with pytest.raises(RuntimeError):
        with gc_deferral.full_collections_deferred():
            with gc_deferral.full_collections_deferred():
                raise RuntimeError("compile failed")
    assert gc.get_threshold() == (500, 7, 9)
    assert gc_deferral.depth() == 0


def test_a_threshold_the_program_sets_meanwhile_is_kept():
    gc.set_threshold(700, 10, 10)
    with gc_deferral.full_collections_deferred():
        gc.set_threshold(100, 5, 5)
    assert gc.get_threshold() == (100, 5, 5)


def test_collection_switched_off_by_threshold_stays_off():
    gc.set_threshold(0, 10, 10)
    with gc_deferral.full_collections_deferred():
        assert gc.get_threshold() == (0, 10, 10)
    assert gc.get_threshold() == (0, 10, 10)


def test_overlapping_compiles_in_two_threads_restore_after_the_last():
    gc.set_threshold(700, 10, 10)
    inside, release = threading.Event(), threading.Event()

    def other():
        with gc_deferral.full_collections_deferred():
            inside.set()
            release.wait(10)

    thread = threading.Thread(target=other)
    with gc_deferral.full_collections_deferred():
        thread.start()
        assert inside.wait(10)
    assert gc.get_threshold()[2] > 10**6  # the other thread still compiles
    release.set()
    thread.join(10)
    assert gc.get_threshold() == (700, 10, 10)


def test_loom_compiles_a_frame_with_full_collections_deferred():
    gc.set_threshold(700, 10, 10)
    seen = []

    def backend(gm, example_inputs):
        seen.append(gc.get_threshold())
        return gm.forward

    def f(x):
        return x.sin() + 1

    x = torch.randn(4)
    assert torch.equal(loom.compile(f, backend=backend)(x), f(x))
    assert len(seen) == 1 and seen[0][:2] == (700, 10) and seen[0][2] > 10**6
    assert gc.get_threshold() == (700, 10, 10)
