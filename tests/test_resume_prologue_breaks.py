"""A break in a resume function's prologue runs that resume function as it is (issue 29, after Paddle's SOT
test_zip's iterator passed to a loop with a break in its body). The prologue rebuilds the loop's iterator;
an iterator argument looped over itself that stands at another position on the next call is not modelled,
so the rebuild breaks, at an instruction no original one stands for: that was an internal error (KeyError in
``resume.origin_of``) and the resume function ran uncompiled with a warning."""

import warnings

import torch

import loom


def _print_in_loop(x, it):
    for i in it:
        print("item", i)
        x = x + i
    return x


def test_an_iterator_argument_moving_between_calls_with_a_break_in_the_loop(capsys):
    loom.reset()
    compiled = loom.compile(_print_in_loop, backend="eager", options={"strict": True})
    for make in (lambda: iter([0, 1, 2]), lambda: iter(range(3))):
        for skip in (0, 1, 2):
            eager_it, loom_it = make(), make()
            for _ in range(skip):
                next(eager_it)
                next(loom_it)
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # an internal error is a RuntimeWarning without strict
                actual = compiled(torch.ones(1), loom_it)
            expected = _print_in_loop(torch.ones(1), eager_it)
            torch.testing.assert_close(actual, expected)
            assert list(loom_it) == list(eager_it) == []
    out = capsys.readouterr().out
    assert out.count("item") == 2 * (3 + 2 + 1) * 2  # every print ran once per call, eager's and loom's
