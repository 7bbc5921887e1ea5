"""``str(e)``, ``repr(e)`` and ``f"{e}"`` of an exception the compiled code did not raise itself: one raised by a
call that ran natively (a break in the ``try``), which the resume function's handler receives from the frame.

Where the class's text method is a C one that reads only ``args`` (``BaseException``'s, ``KeyError``'s) the text
is folded from the real exception under a guard on its ``args``, so the handler costs no more breaks; any other
class (``OSError`` reads ``errno`` and ``strerror``, a Python ``__str__``) keeps eager's text too.
"""

from __future__ import annotations

import torch

import loom


@torch._disable_dynamo
def _raise(cls, *args):
    raise cls(*args)


def _texts(cls, *args):
    def fn(x):
        try:
            _raise(cls, *args)
        except Exception as e:
            return x + 1, str(e), repr(e), f"{e}", f"{e!r}", e.args
        return x, None

    return fn


def _breaks(fn, *args):
    return [b.what for b in loom.explain(fn, backend="eager")(*args).breaks]


def _check_as_eager(fn, x):
    expected = fn(x)
    loom.reset()
    actual = loom.compile(fn, backend="eager")(x)
    torch.testing.assert_close(actual[0], expected[0])
    assert actual[1:] == expected[1:]


def test_the_text_of_a_natively_raised_exception_costs_no_break():
    fn = _texts(ValueError, "bad value", 3)
    x = torch.arange(3.0)
    _check_as_eager(fn, x)
    assert len(_breaks(fn, x)) == 1  # the native call only


def test_key_error_text_is_the_repr_of_its_key():
    fn = _texts(KeyError, "missing")
    _check_as_eager(fn, torch.ones(2))
    assert fn(torch.ones(2))[1] == "'missing'"


def test_another_message_on_a_later_call_is_not_the_first_one():
    """The text is folded under a guard on ``args``: a new message compiles again and is shown."""
    messages = iter(["first", "second", "second"])

    @torch._disable_dynamo
    def fails():
        raise RuntimeError(next(messages))

    def fn(x):
        try:
            fails()
        except RuntimeError as e:
            return x * 2, str(e)

    loom.reset()
    compiled = loom.compile(fn, backend="eager")
    assert [compiled(torch.ones(1))[1] for _ in range(3)] == ["first", "second", "second"]


def test_an_exception_whose_text_reads_attributes_keeps_eager_text():
    def make_os_error():
        error = OSError(2, "No such file", "a.txt")
        error.strerror = "changed later"
        raise error

    raising = torch._disable_dynamo(make_os_error)

    def fn(x):
        try:
            raising()
        except OSError as e:
            return x + 1, str(e)

    _check_as_eager(fn, torch.ones(2))
    assert fn(torch.ones(2))[1] == "[Errno 2] changed later: 'a.txt'"


def test_a_python_str_method_of_the_exception_class_keeps_eager_text():
    class Described(Exception):
        def __str__(self):
            return f"described {self.args[0] * 2}"

    fn = _texts(Described, 21)
    _check_as_eager(fn, torch.ones(2))
    assert fn(torch.ones(2))[1] == "described 42"
