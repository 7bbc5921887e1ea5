"""What an exception raised while tracing carries, read in the trace without a break (issue 29, second
hidden set): the ``StopIteration`` that ends a generator made in the trace holds its return value once
(``next``, ``send``, ``throw``), and an error the translator got by running the real operation on constants
(``1 / 0``, an index out of range, ``int("seven")``) holds Python's own message; ``SystemExit.code`` is
found from the arguments as CPython's ``__init__`` sets it, and ``exc.args = ...`` replaces the arguments (after
test_baseexception and test_exceptions)."""

import pytest
import torch
from harness import CaseRegistry, check

CASES = CaseRegistry(default_graphs=1)
case = CASES
X = torch.ones(3)


def returns_done(t):
    yield t
    return "done"


def falls_off(t):
    yield t


def returns_from_finally():
    try:
        yield 1
    except ValueError:
        return 2
    finally:
        return 3  # noqa: B012


def stop_of(fn, *args):
    try:
        fn(*args)
    except StopIteration as stop:
        return stop.value, stop.args


@case(X)
def stop_iteration_values(x):
    gen = returns_done(x)
    next(gen)
    first, again = stop_of(next, gen), stop_of(next, gen)
    looped = returns_done(x)
    for _ in looped:
        pass
    plain = falls_off(x)
    next(plain)
    thrown = returns_from_finally()
    next(thrown)
    return x + 1, first, again, stop_of(next, looped), stop_of(next, plain), stop_of(thrown.throw, ValueError)


@case(X)
def messages_of_folded_errors(x):
    seen = []
    try:
        1 / 0
    except ZeroDivisionError as exc:
        seen.append(exc.args)
    try:
        "ab"[5]
    except IndexError as exc:
        seen.append(str(exc))
    try:
        int("seven")
    except ValueError as exc:
        seen.append(exc.args)
    return x * len(seen), seen


def ignores_exit():
    try:
        yield 1
    except GeneratorExit:
        yield 2


@case(X)
def messages_of_generator_errors(x):
    seen = []
    try:
        returns_done(x).send(1)
    except TypeError as exc:
        seen.append(str(exc))
    gen = ignores_exit()
    next(gen)
    try:
        gen.close()
    except RuntimeError as exc:
        seen.append(exc.args)
    return x + 1, seen


@case(X)
def messages_of_zip_strict(x):
    seen = []
    for a, b in (([1, 2], [1]), ([1], [1, 2])):
        try:
            list(zip(a, b, strict=True))
        except ValueError as exc:
            seen.append(str(exc))
    try:
        list(zip([1], [1], [1, 2], strict=True))
    except ValueError as exc:
        seen.append(exc.args)
    return x + 1, seen


@case(X)
def system_exit_codes(x):
    codes = []
    for args in ((), (3,), (1, "two"), ("message",)):
        try:
            raise SystemExit(*args)
        except SystemExit as exc:
            codes.append(exc.code)
    return x * 2, codes


@case(X)
def args_reassigned(x):
    made = ValueError(1)
    made.args = (1, "two", 3)
    listed = KeyError("k")
    listed.args = [4, 5]
    try:
        raise listed
    except KeyError as exc:
        caught = exc.args
    return x + len(made.args), made.args, caught, str(listed), repr(made)


@case(X)
def unicode_error_fields_of_folded_encode(x):
    """A UnicodeEncodeError/DecodeError from a folded ``str.encode``/``bytes.decode`` holds the fields CPython
    sets besides its args (``start``, ``end``, ``reason``...): reading them was a graph break (string_tests)."""
    y = x + 1
    try:
        "a\xe9b".encode("ascii")
    except UnicodeEncodeError as e:
        encoded = (e.start, e.end, e.reason, e.encoding, e.object)
    try:
        b"\xff".decode("utf-8")
    except UnicodeDecodeError as e:
        decoded = (e.start, e.end, e.object)
    return y + encoded[0] + decoded[1], encoded, decoded


@case(X)
def fields_of_builtin_exceptions_made_by_a_call(x):
    """Fields a builtin exception's ``__init__`` derives from its arguments (``start``, ``errno``, ``lineno``...),
    on one the trace made by calling its class: reading them was a graph break (Paddle's test_24_exceptions)."""
    made = UnicodeTranslateError("ab", 0, 1, "why")
    os_error = OSError(2, "missing", "f.txt")
    syntax = SyntaxError("bad", ("f.py", 3, 4, "text"))
    return (x + made.start + os_error.errno, (made.end, made.reason, made.object),
            (os_error.strerror, os_error.filename, os_error.filename2), (syntax.lineno, syntax.offset, syntax.msg),
            ImportError("m").name, FileNotFoundError(2, "gone").strerror)


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs"), CASES)
def test_exception_values_match_eager(fn, args, kwargs, graphs):
    check(fn, *args, graphs=graphs, **kwargs)


def test_args_reassigned_leaves_what_init_set():
    """StopIteration.value and SystemExit.code keep what ``__init__`` set when ``args`` changes later."""
    loom = pytest.importorskip("loom", reason="compiles through the loom facade")

    def reassigned(x):
        stop, leave = StopIteration(1), SystemExit(2)
        stop.args, leave.args = (5,), (6,)
        return x + 1, stop.value, leave.code, stop.args
    loom.reset()
    actual = loom.compile(reassigned, backend="eager")(X)
    expected = reassigned(X)
    assert torch.equal(actual[0], expected[0]) and actual[1:] == expected[1:]
