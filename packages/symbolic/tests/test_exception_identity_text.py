"""Exceptions made in the trace are objects with an identity, never folded constants: ``e in caught`` finds the
very exception (a folded one was a fresh object each time, so ``in`` answered False), and the text of one whose
class's ``__init__`` rewrites its arguments is read from the ``args`` it holds (folding made the class again from
those ``args``, running its ``__init__`` a second time: ``'code code 3'``); ``format``, ``%`` and ``str.format`` of one
use ``object.__format__``, its ``str``. Modelled on the custom exceptions of PyTorch's test/dynamo/test_exceptions.py."""

import pytest
import torch
from harness import CaseRegistry, check

CASES = CaseRegistry(default_graphs=1)
case = CASES
X = torch.arange(3.0)


class Coded(ValueError):
    def __init__(self, code):
        super().__init__(f"code {code}")
        self.code = code


class Spoken(Exception):
    def __init__(self, word):
        super().__init__(word)
        self.word = word

    def __str__(self):
        return f"said {self.word}"


@case(X)
def text_of_exception_whose_init_rewrites_args(x):
    try:
        raise Coded(3)
    except ValueError as e:
        return x * e.code, e.args, str(e), repr(e), f"{e}", f"{e!r}"


@case(X)
def text_of_exception_with_python_str(x):
    e = Spoken("hi")
    return x + 1, str(e), f"<{e}>", e.args


@case(X)
def caught_exceptions_found_by_identity(x):
    caught = []
    for k in range(2):
        try:
            raise IndexError(k)
        except IndexError as e:
            caught.append(e)
    first = caught[0]
    return (
        x + len(caught),
        first in caught,
        caught.index(caught[1]),
        caught[0] == caught[1],
        caught.count(first),
    )


@case(X)
def text_of_builtin_exceptions_made_here(x):
    texts = []
    for made in (KeyError("k"), ValueError(), ValueError(1, 2), StopIteration(5)):
        texts.append((str(made), repr(made)))
    return x + 1, texts


@case(X)
def format_and_percent_of_exceptions(x):
    key, value = KeyError("k"), ValueError("m", 2)
    return x + 1, "%s/%r" % (key, value), "{}|{!r}".format(value, key), format(Coded(4))


@case(X)
def text_of_groups_and_nested_exceptions(x):
    group = ExceptionGroup("flat", [ValueError(1), TypeError(None)])
    holder = ValueError(KeyError("k"), (IndexError(2), None))
    return x + 1, str(group), repr(group), str(holder), repr(ValueError(None))


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs"), CASES)
def test_exception_identity_and_text_match_eager(fn, args, kwargs, graphs):
    check(fn, *args, graphs=graphs, **kwargs)
