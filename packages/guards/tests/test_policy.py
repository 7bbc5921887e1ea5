"""RecompilePolicy: the per-code limit, the single warning naming the guard that kept failing, and
tracking code objects without keeping them alive."""

from __future__ import annotations

import builtins
import gc
import warnings

import pytest
import torch

from loom_guards import Local, RecompileLimitWarning, RecompilePolicy, TensorMatch, compile


def make_code(name: str = "f"):
    namespace: dict = {}
    exec(f"def {name}(x):\n    return x\n", namespace)
    return namespace[name].__code__


def test_limit_and_single_warning():
    policy = RecompilePolicy(limit=3)
    code = make_code()
    for _ in range(3):
        assert policy.allow_compile(code, "L['x'].shape[0] == 8, got 16")
    assert policy.count(code) == 3
    assert policy.exceeded(code)
    with pytest.warns(RecompileLimitWarning) as record:
        assert policy.allow_compile(code, "L['x'].shape[0] == 8, got 32") is False
    assert len(record) == 1
    message = str(record[0].message)
    assert "reached the recompile limit (3)" in message
    assert "f (" in message  # names the function and where it is
    assert "The guard that kept failing: L['x'].shape[0] == 8 (failed 4 times)" in message
    assert "Last failure: L['x'].shape[0] == 8, got 32." in message
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no second warning for the same code
        for _ in range(5):
            assert policy.allow_compile(code, "L['x'].shape[0] == 8, got 64") is False


def test_default_limit_is_eight():
    policy = RecompilePolicy()
    code = make_code()
    assert policy.limit == 8
    assert sum(policy.allow_compile(code) for _ in range(8)) == 8
    with pytest.warns(RecompileLimitWarning, match="No guard failure was reported"):
        assert not policy.allow_compile(code)


def test_warning_names_the_most_frequent_failure():
    policy = RecompilePolicy(limit=1)
    code = make_code()
    assert policy.allow_compile(code)
    for size in (3, 4, 5):
        policy.note_failure(code, f"L['x'].shape[0] == 2, got {size}")
    policy.note_failure(code, "L['n'] == 1, got 2")
    assert policy.failures(code) == {"L['x'].shape[0] == 2": 3, "L['n'] == 1": 1}
    with pytest.warns(RecompileLimitWarning, match=r"kept failing: L\['x'\]\.shape\[0\] == 2 \(failed 3 times\)"):
        policy.allow_compile(code)


def test_takes_why_failed_results():
    x = torch.randn(8)
    check = compile([TensorMatch(Local("x"), x)])
    reason = check.why_failed({"x": torch.randn(16)})
    policy = RecompilePolicy(limit=0)
    code = make_code()
    policy.note_failure(code, reason)
    assert policy.failures(code) == {"L['x'].shape[0] == 8": 1}
    with pytest.warns(RecompileLimitWarning, match="shape"):
        assert not policy.allow_compile(code)


def test_codes_are_counted_separately():
    policy = RecompilePolicy(limit=1)
    a, b = make_code("a"), make_code("b")
    assert policy.allow_compile(a)
    assert policy.allow_compile(b)
    assert policy.count(a) == policy.count(b) == 1


def test_code_objects_are_not_kept_alive():
    policy = RecompilePolicy(limit=2)
    code = make_code()
    policy.allow_compile(code, "reason")
    policy.note_failure(code, "reason")
    referrers = gc.get_referrers(code)
    assert not any(r is policy or r is policy._records for r in referrers)
    for rec in policy._records.values():
        assert code not in gc.get_referents(rec)


def test_reused_address_does_not_inherit_counts():
    policy = RecompilePolicy(limit=1)
    first = compile_code("a + 1", "first")
    address = id(first)
    assert policy.allow_compile(first)
    del first
    for _ in range(200):  # CPython hands a freed block to the next object of the same size
        second = compile_code("b + 2", "second")
        if id(second) == address:
            break
    else:
        pytest.skip("the allocator did not reuse the address")
    assert policy.count(second) == 0
    assert policy.allow_compile(second)


def compile_code(src: str, filename: str):
    return builtins.compile(src, filename, "eval")


def test_forget_reset_and_bounded_table():
    policy = RecompilePolicy(limit=1, max_tracked=3)
    codes = [make_code(f"f{i}") for i in range(5)]
    for c in codes:
        policy.allow_compile(c)
    assert len(policy) == 3  # the least recently used were dropped
    assert policy.count(codes[0]) == 0
    policy.forget(codes[4])
    assert policy.count(codes[4]) == 0
    policy.reset()
    assert len(policy) == 0


def test_other_hashable_keys():
    policy = RecompilePolicy(limit=1)
    assert policy.allow_compile("my-key")
    with pytest.warns(RecompileLimitWarning, match="'my-key'"):
        assert not policy.allow_compile("my-key")
    with pytest.raises(TypeError):
        policy.allow_compile(["unhashable"])


@pytest.mark.parametrize(("limit", "error"), [(-1, ValueError), ("8", TypeError), (2.0, TypeError)])
def test_bad_limits(limit, error):
    with pytest.raises(error):
        RecompilePolicy(limit=limit)


def test_limit_zero_never_compiles():
    policy = RecompilePolicy(limit=0)
    with pytest.warns(RecompileLimitWarning):
        assert not policy.allow_compile(make_code())
