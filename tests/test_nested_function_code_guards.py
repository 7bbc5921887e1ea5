"""Functions made by a ``def`` inside the compiled function are guarded by their code, not their identity:
a frame that reads one (a helper run on its own after a break in a nested call, the caller's resume
function) no longer recompiles on every call of the enclosing function, and any use other than a call
pins the function by identity, so answers stay eager's."""

import torch

import loom


@torch.compiler.disable
def _opaque(t):
    return t + 100


def _three_calls(fn, make_args):
    compiled = loom.compile(fn)
    results = []
    for _ in range(3):
        results.append((compiled(*make_args()), fn(*make_args())))
    return results


def _same(a, b):
    if isinstance(a, torch.Tensor):
        return torch.equal(a, b)
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def test_helper_frame_reading_nested_def_from_cell_compiles_once():
    def outer(x):
        def f1(t):
            return _opaque(t + 1) * 2

        def f2(t):
            return f1(t * 3) - 1

        return f2(x) + 5

    x = torch.arange(3.0)
    for got, want in _three_calls(outer, lambda: (x,)):
        assert torch.equal(got, want)
    stats = loom.stats()
    assert stats["recompiles"] == 0
    report = loom.explain(outer)(x)
    assert report.graph_break_count >= 1
    assert all("_opaque" in b.what for b in report.breaks)


def test_resume_function_holding_nested_def_compiles_once():
    def outer(x):
        def step(t, i):
            t = _opaque(t) + i
            return t * 0.5

        acc = x
        for i in range(3):
            acc = step(acc, i)
        return acc

    x = torch.arange(3.0)
    compiled = loom.compile(outer)
    compiled(x)
    before = loom.stats()["frames_compiled"]
    for _ in range(3):
        assert torch.equal(compiled(x), outer(x))
    assert loom.stats()["frames_compiled"] == before


def test_identity_of_nested_def_still_guarded():
    def outer(x, seen):
        def f1(t):
            return t + 1

        def f2(t):
            first = seen[0] if seen else None
            _opaque(t)
            return f1(t), f1 is first, f1.__name__

        if not seen:
            seen.append(f1)
        return f2(x)

    compiled = loom.compile(outer)
    x = torch.arange(3.0)
    seen_compiled, seen_eager = [], []
    for _ in range(3):
        assert _same(compiled(x, seen_compiled), outer(x, seen_eager))


def test_nested_def_defaults_differing_per_call():
    def outer(x, n):
        def f1(t, k=n):
            return t * k

        def f2(t):
            _opaque(t)
            return f1(t) + 1

        return f2(x)

    compiled = loom.compile(outer)
    x = torch.arange(3.0)
    for n in (2.0, 3.0, 2.0, 5.0):
        assert torch.equal(compiled(x, n), outer(x, n))


def test_nested_def_given_an_attribute_between_calls():
    def outer(x, tag):
        def f1(t):
            return t + getattr(f1, "bias", 0.0)

        if tag:
            f1.bias = 7.0

        def f2(t):
            _opaque(t)
            return f1(t)

        return f2(x)

    compiled = loom.compile(outer)
    x = torch.arange(3.0)
    for tag in (False, True, False, True):
        assert torch.equal(compiled(x, tag), outer(x, tag))


def test_nested_def_swapped_for_other_code_recompiles():
    def outer(x, which):
        def add(t):
            return t + 1

        def mul(t):
            return t * 10

        f1 = add if which else mul

        def f2(t):
            _opaque(t)
            return f1(t)

        return f2(x)

    compiled = loom.compile(outer)
    x = torch.arange(3.0)
    for which in (True, False, True, False):
        assert torch.equal(compiled(x, which), outer(x, which))


def test_nested_closure_writing_its_cell_each_call():
    def outer(x):
        count = 0

        def bump(t):
            nonlocal count
            count += 1
            return t + count

        def f2(t):
            _opaque(t)
            return bump(bump(t))

        return f2(x), count

    x = torch.arange(3.0)
    for got, want in _three_calls(outer, lambda: (x,)):
        assert _same(got, want)


def test_nested_closure_over_sibling_compiles_once():
    def outer(x):
        def f1(t, *, scale=2.0):
            return _opaque(t) * scale

        def f2(t):
            return f1(t + 1) - 1

        def f3(t):
            return f2(t * 3) + 4

        return f3(x)

    x = torch.arange(3.0)
    for got, want in _three_calls(outer, lambda: (x,)):
        assert torch.equal(got, want)
    assert loom.stats()["recompiles"] == 0


def test_nested_closures_sharing_a_cell():
    def outer(x, k):
        acc = [k]

        def put(v):
            nonlocal acc
            acc = acc + [v]

        def get():
            return acc

        def f2(t):
            _opaque(t)
            put(2.0)
            return t * sum(get())

        return f2(x), acc

    compiled = loom.compile(outer)
    x = torch.arange(3.0)
    for k in (1.0, 1.0, 5.0):
        assert _same(compiled(x, k), outer(x, k))
