"""``locals()``, ``vars()`` and ``dir()`` with no argument (Paddle's SOT test_unsupport_function, issue 29). They
were graph breaks whose native call read loom's rewritten frame, so the program saw loom's own temporaries
(``___loom_slot1``) among its locals: wrong answers. Now the trace answers them from the frame's bound locals,
and a frame that names one of them runs as it is at any other break."""

import warnings

import pytest
import torch
from breaks_harness import show

import loom


def _keys_and_sum(x, y):
    tmp = locals()
    return x + y + len(list(tmp.keys())), list(tmp.keys())


def _after_stores(x):
    a = 1
    b = x * 2
    del a
    names = dir()
    return b + len(vars()), names


def _callee_reads_its_own(v):
    scale = 3
    return sorted(locals())


def _caller(x):
    inner = _callee_reads_its_own(x)
    return x + len(inner), inner, sorted(locals())


def _after_a_print(x):
    a = x + 1
    show("break here")
    b = a * 2
    return b, sorted(locals()), len(locals())


def _twice(x):
    first = locals()
    first["extra"] = 1
    second = locals()
    return x + 1, sorted(second), first is second


def _with_a_cell(x):
    k = 2

    def inner():
        return k

    return x + inner(), sorted(locals())


def _in_a_loop_with_a_break(x):
    total = x
    for i in range(3):
        show("pass", i)
        total = total + len(locals())
    return total


def _plain(value):
    """Tensors as lists, containers item by item: equal exactly when the answers are."""
    if isinstance(value, torch.Tensor):
        return ("tensor", value.dtype, value.tolist())
    if isinstance(value, (list, tuple)):
        return type(value), [_plain(v) for v in value]
    return value


CASES = [(_keys_and_sum, 1, 0), (_after_stores, 1, 0), (_caller, 1, 0), (_after_a_print, None, None),
         (_twice, None, None), (_with_a_cell, None, None), (_in_a_loop_with_a_break, None, None)]


@pytest.mark.parametrize(("fn", "graphs", "breaks"), CASES, ids=[case[0].__name__ for case in CASES])
def test_frame_locals_answers_are_eagers(fn, graphs, breaks, capsys):
    args = (torch.ones(2), torch.ones(2)) if fn is _keys_and_sum else (torch.ones(2),)
    loom.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no internal error (a RuntimeWarning)
        actual = loom.compile(fn, backend="eager")(*args)
    expected = fn(*args)
    assert _plain(actual) == _plain(expected)
    stats = loom.stats()
    if graphs is not None:  # (the others run as they are at their break: a graph is not the point)
        assert (stats["graphs"], stats["graph_breaks"]) == (graphs, breaks), stats
    capsys.readouterr()


class _Box:
    def __init__(self):
        self.k = 2


def _vars_of_an_object_then_a_print(x):
    y = x * len(vars(_Box())) + len(dir(x)) * 0
    show("break here")
    return y + 1


def test_vars_and_dir_of_an_object_leave_the_frame_compiled(capsys):
    # only a call with no argument reads the frame: vars(obj) and dir(obj) do not make the frame run as it is
    loom.reset()
    actual = loom.compile(_vars_of_an_object_then_a_print, backend="eager")(torch.ones(2))
    torch.testing.assert_close(actual, _vars_of_an_object_then_a_print(torch.ones(2)))
    assert loom.stats()["graphs"] >= 1, loom.stats()
    capsys.readouterr()
