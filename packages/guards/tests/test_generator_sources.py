"""``GeneratorFunction``: the function that made a generator, read from the generator object (its closure
cells are pinned by guarding that function's identity); fetched, printed, pickled and checked by compiled
guards on both back ends."""

from __future__ import annotations

import pickle

import pytest

from loom_guards import GeneratorFunction, Identity, Local
from loom_guards.generator_sources import generator_function


def _closure(k):
    def gen():
        yield k

    return gen


def test_reads_the_function_that_made_the_generator():
    made = _closure(1)
    source = GeneratorFunction(Local("g"))
    assert str(source) == "function_of(L['g'])" and source == GeneratorFunction(Local("g"))
    assert pickle.loads(pickle.dumps(source)) == source
    assert source.fetch({"g": made()}) is made
    assert generator_function(made()) is made
    with pytest.raises(TypeError):
        source.fetch({"g": 3})
    finished = made()
    list(finished)
    with pytest.raises(LookupError):
        source.fetch({"g": finished})  # its frame is gone: the guard fails


def test_identity_of_the_function_tells_closures_apart(build):
    made, other = _closure(1), _closure(1)  # one code, two closures
    guard = build([Identity(GeneratorFunction(Local("g")), made)])
    assert guard({"g": made()})
    assert not guard({"g": other()})
    assert not guard({"g": 3})
    finished = made()
    list(finished)
    assert not guard({"g": finished})
