"""A loop whose items are taken natively (a list, an iterator, a ``ModuleList``) with a graph break as the last
statement of its body enters one compiled frame per pass, not two.

The body is a resume function entered with the item (docs/symbolic.md, "A graph break inside a loop"). Its
break used to go on in the resume function of the loop head, an entry with no graph that only took the
next item and handed it back to the body: two frame entries (hook, guards, frame) per pass. The body's
rewritten code now takes the next item itself (``iter_at`` and a native ``FOR_ITER``, exactly what that
entry ran) and goes on in the body again, or after the loop when it is exhausted. Counted with
``loom.stats()["cache_hits"]``: the compiled frames one call entered.
"""

from __future__ import annotations

import io

import torch

import loom

_SINK = io.StringIO()


def over_list(x, ts):
    for t in ts:
        x = x + t.sin()
        print("item", file=_SINK)
    return x


def over_iterator(x, it):
    for t in it:
        x = x * 0.5 + t
        print("item", file=_SINK)
    return x


def nested(x, rows):
    for row in rows:
        for t in row:
            x = x + t
            print("item", file=_SINK)
        x = x * 0.5
    return x


def with_else(x, ts, stop):
    for t in ts:
        x = x + t
        if x.sum() > stop:
            break
        print("item", file=_SINK)
    else:
        x = x - 100
    return x


def grows(x, ts):
    for t in ts:
        x = x + t
        grow(ts, t)
    return x


@loom.disable
def grow(ts, t):
    if len(ts) < 12:
        ts.append(t * 2)
    print("grow", file=_SINK)


def work_after(x, ts):
    outs = []
    for t in ts:
        x = x + t
        print("item", file=_SINK)
        outs.append(x)
    return x, outs


def _entries_per_call(compiled, *args):
    """The compiled frames one (warm) call enters."""
    before = loom.stats()["cache_hits"]
    compiled(*args)
    return loom.stats()["cache_hits"] - before


def _extra_entries(compiled, make_args, short, long):
    """How many more compiled frames a warm call of length ``long`` enters than one of length ``short``
    (both lengths run first: a loop's entries differ in their first passes until both have been seen)."""
    for _ in range(2):
        counts = [_entries_per_call(compiled, *make_args(n)) for n in (short, long)]
    return counts[1] - counts[0]


def _warm(fn, make_args, lengths):
    loom.reset()
    compiled = loom.compile(fn, backend="eager")
    for n in lengths:
        for _ in range(3):
            expected = fn(*make_args(n))
            torch.testing.assert_close(compiled(*make_args(n)), expected)
    return compiled


def _tensors(n):
    return [torch.full((4,), float(k % 5)) for k in range(n)]


def test_a_list_loop_enters_one_frame_per_pass():
    x = torch.randn(4)
    compiled = _warm(over_list, lambda n: (x, _tensors(n)), (6, 12))
    frames = loom.stats()["frames_compiled"]
    assert _extra_entries(compiled, lambda n: (x, _tensors(n)), 6, 12) == 6  # two per pass before
    assert loom.stats()["frames_compiled"] == frames
    torch.testing.assert_close(compiled(x, _tensors(30)), over_list(x, _tensors(30)))


def test_an_iterator_loop_enters_one_frame_per_pass():
    x = torch.randn(4)
    compiled = _warm(over_iterator, lambda n: (x, iter(_tensors(n))), (6, 12))
    assert _extra_entries(compiled, lambda n: (x, iter(_tensors(n))), 12, 24) == 12  # two per pass before
    it = iter(_tensors(9))
    torch.testing.assert_close(compiled(x, it), over_iterator(x, iter(_tensors(9))))
    assert next(it, None) is None  # the loop ran the iterator out, as eager does


def test_a_module_list_loop_enters_one_frame_per_pass():
    torch.manual_seed(0)
    x = torch.randn(2, 8)

    def make(n):
        layers = torch.nn.ModuleList(torch.nn.Linear(8, 8) for _ in range(n))

        def over_modules(x):
            for layer in layers:
                x = torch.relu(layer(x))
                print("layer", file=_SINK)
            return x

        return over_modules

    entries = []
    for n in (5, 10):
        fn = make(n)
        loom.reset()
        compiled = loom.compile(fn, backend="eager")
        with torch.no_grad():
            for _ in range(3):
                torch.testing.assert_close(compiled(x), fn(x))
            entries.append(_entries_per_call(compiled, x))
    assert entries[1] - entries[0] == 5


def test_an_inner_loop_enters_one_frame_per_pass_and_the_outer_goes_on():
    x = torch.randn(4)

    def rows(n):
        return [_tensors(n) for _ in range(3)]

    compiled = _warm(nested, lambda n: (x, rows(n)), (6, 12))
    assert _extra_entries(compiled, lambda n: (x, rows(n)), 6, 12) == 3 * 6
    torch.testing.assert_close(compiled(x, rows(7)), nested(x, rows(7)))


def test_a_break_statement_and_the_else_block_stay_eager():
    x = torch.zeros(4)
    compiled = _warm(with_else, lambda n: (x, _tensors(n), 1e9), (6, 12))
    for stop in (1e9, 20.0, 0.5, -1.0):
        torch.testing.assert_close(compiled(x, _tensors(10), stop), with_else(x, _tensors(10), stop))


def test_a_list_grown_by_the_break_is_iterated_live():
    x = torch.zeros(4)
    loom.reset()
    compiled = loom.compile(grows, backend="eager")
    for n in (2, 3, 5, 4):
        ts, expected_ts = _tensors(n), _tensors(n)
        expected = grows(x, expected_ts)
        torch.testing.assert_close(compiled(x, ts), expected)
        assert len(ts) == len(expected_ts) == 12


def test_work_after_the_break_still_runs_in_order():
    x = torch.zeros(4)
    compiled = _warm(work_after, lambda n: (x, _tensors(n)), (6, 12))
    out, outs = compiled(x, _tensors(9))
    expected, expected_outs = work_after(x, _tensors(9))
    torch.testing.assert_close(out, expected)
    assert len(outs) == len(expected_outs)
    for got, want in zip(outs, expected_outs):
        torch.testing.assert_close(got, want)


def test_a_pass_makes_no_function():
    """The resume function a pass bounces to is made once, with the frame's globals, and loaded as a constant
    (MAKE_FUNCTION ran once per pass before); one with a closure is still made from its cells."""
    import dis

    import loom_framehook
    from loom_symbolic import resume
    from loom_symbolic.bytecode_helpers import Bounce

    x = torch.randn(4)
    _warm(over_list, lambda n: (x, _tensors(n)), (6, 12))
    bodies = [code for code in list(resume._origins) if code.co_filename == __file__ and code.co_name == "over_list"]
    entries = [entry for code in bodies for entry in loom_framehook.entries(code)]
    bouncing = [entry for entry in entries if any(ins.argval is Bounce for ins in dis.get_instructions(entry.code))]
    assert len(bouncing) >= 2  # the loop head's first entry and the body (the exit returns)
    for entry in bouncing:
        instructions = list(dis.get_instructions(entry.code))
        assert not [ins for ins in instructions if ins.opname == "MAKE_FUNCTION"]
        made = [ins.argval for ins in instructions if ins.opname == "LOAD_CONST" and callable(ins.argval)
                and getattr(ins.argval, "__code__", None) in resume._origins]
        assert made and all(function.__globals__ is globals() for function in made)
    scale = torch.tensor(0.5)

    def closing(x, ts):
        for t in ts:
            x = x * scale + t
            print("item", file=_SINK)
        return x

    compiled = _warm(closing, lambda n: (x, _tensors(n)), (6, 12))
    torch.testing.assert_close(compiled(x, _tensors(9)), closing(x, _tensors(9)))
