"""More exceptions and context managers after PyTorch's test_exceptions.py and test_ctx_manager.py (round
exc15), for ``capture_count.py --only exc15``: errors raised by builtins and operators inside ``try`` (int()
of a bad string, unsupported operands, PEP 479's StopIteration in a generator), ``__getitem__``-protocol
iteration ending in IndexError, ``__missing__``, property getters that raise, ``getattr`` defaults over raising
``__getattr__``, exception notes and ``args`` edits, contextlib managers entered by hand, ``ExitStack.pop_all``
and ``contextlib.closing``, each written afresh over one tensor.
"""

from __future__ import annotations

import contextlib

import torch


class _OldIter:
    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        if i >= self.n:
            raise IndexError(i)
        return i * 2


class _Missing(dict):
    def __missing__(self, key):
        return len(key)


class _Prop:
    @property
    def bad(self):
        raise ValueError("no")

    @property
    def good(self):
        return 4


class _Lazy:
    def __getattr__(self, name):
        raise AttributeError(name)


class _Closable:
    def __init__(self, log):
        self.log = log

    def close(self):
        self.log.append("closed")


def c_exc15_int_of_bad_string(x):
    vals = []
    for s in ("3", "x", "7"):
        try:
            vals.append(int(s))
        except ValueError:
            vals.append(-1)
    return x + sum(vals), tuple(vals)


def c_exc15_unsupported_operand_caught(x):
    try:
        r = "a" + 1
    except TypeError:
        r = 2
    return x * r


def c_exc15_int_zero_division(x):
    out = []
    for d in (2, 0):
        try:
            out.append(6 // d)
        except ZeroDivisionError as e:
            out.append(len(e.args))
    return x + sum(out)


def c_exc15_pep479_stopiteration_in_gen(x):
    def gen():
        yield 1
        raise StopIteration

    try:
        vals = list(gen())
        kind = "none"
    except RuntimeError as e:
        vals = []
        kind = type(e.__cause__).__name__
    return x + len(vals), kind


def c_exc15_getitem_iteration_protocol(x):
    acc = 0
    for v in _OldIter(4):
        acc += v
    return x + acc, list(_OldIter(3))


def c_exc15_dict_missing_hook(x):
    d = _Missing(a=1)
    return x + d["a"] + d["long"], "long" in d


def c_exc15_property_raises_caught(x):
    p = _Prop()
    try:
        v = p.bad
    except ValueError:
        v = p.good
    return x * v


def c_exc15_getattr_default_over_raising(x):
    o = _Lazy()
    return x + getattr(o, "w", 3), hasattr(o, "w")


def c_exc15_next_default_and_stop(x):
    it = iter([x])
    a = next(it, None)
    b = next(it, None)
    try:
        next(it)
        stopped = False
    except StopIteration:
        stopped = True
    return a * 2, b is None, stopped


def c_exc15_exception_args_edit(x):
    try:
        raise ValueError("a")
    except ValueError as e:
        e.args = ("b", 2)
        got = e
    return x + got.args[1], str(got)


def c_exc15_exception_add_note(x):
    try:
        try:
            raise KeyError("k")
        except KeyError as e:
            e.add_note("extra")
            raise
    except KeyError as e2:
        notes = tuple(e2.__notes__)
    return x + len(notes), notes


def c_exc15_raise_type_of_caught(x):
    try:
        try:
            raise IndexError("first")
        except Exception as e:
            raise type(e)("second") from e
    except IndexError as e2:
        return x + 1, e2.args[0], e2.__cause__.args[0]


def c_exc15_exception_str_repr(x):
    e = KeyError("kk")
    v = ValueError(1, 2)
    return x + 1, str(e), repr(v), str(ValueError())


def c_exc15_exception_attr_on_instance(x):
    try:
        err = RuntimeError("r")
        err.code = 7
        raise err
    except RuntimeError as e:
        return x * e.code


def c_exc15_assert_message_caught(x):
    try:
        assert x.sum() < -100, "too small"
        msg = ""
    except AssertionError as e:
        msg = e.args[0]
    return x + 1, msg


def c_exc15_except_group_star(x):
    hits = []
    try:
        raise ExceptionGroup("g", [ValueError(1), KeyError(2)])
    except* ValueError as eg:
        hits.append(len(eg.exceptions))
    except* KeyError as eg:
        hits.append(len(eg.exceptions) * 10)
    return x + sum(hits)


def c_exc15_issubclass_and_mro_of_errors(x):
    return (x + issubclass(KeyError, LookupError) + issubclass(GeneratorExit, Exception),
            KeyError.__mro__[1].__name__)


def c_exc15_cm_enter_exit_by_hand(x):
    log = []

    @contextlib.contextmanager
    def cm(t):
        log.append("in")
        try:
            yield t + 1
        finally:
            log.append("out")

    c = cm(x)
    y = c.__enter__()
    suppressed = c.__exit__(None, None, None)
    return y, suppressed, tuple(log)


def c_exc15_cm_exit_with_exception_by_hand(x):
    @contextlib.contextmanager
    def cm():
        try:
            yield
        except KeyError:
            pass

    c = cm()
    c.__enter__()
    sup = c.__exit__(KeyError, KeyError("k"), None)
    return x + 1, bool(sup)


def c_exc15_cm_default_dtype_restored(x):
    @contextlib.contextmanager
    def dtype_ctx(dt):
        old = torch.get_default_dtype()
        try:
            torch.set_default_dtype(dt)
            yield
        finally:
            torch.set_default_dtype(old)

    with dtype_ctx(torch.float64):
        t = torch.tensor([1.0, 2.0])
    return t, torch.get_default_dtype(), x + 1


def c_exc15_cm_nonlocal_from_factory(x):
    z = 0
    k = 0

    def make():
        @contextlib.contextmanager
        def ctx(t):
            nonlocal k
            try:
                yield t.sin()
            finally:
                k = z

        return ctx

    def run(ctx, t):
        nonlocal z
        z = 5
        with ctx(t) as y:
            return y.cos()

    out = run(make(), x)
    return out, z, k


def c_exc15_cm_as_decorator(x):
    log = []

    @contextlib.contextmanager
    def tag():
        log.append(1)
        yield
        log.append(2)

    @tag()
    def work(t):
        return t * 3

    return work(x), tuple(log)


def c_exc15_exitstack_pop_all(x):
    log = []
    with contextlib.ExitStack() as stack:
        stack.callback(log.append, "a")
        later = stack.pop_all()
    log.append("b")
    later.close()
    return x + len(log), tuple(log)


def c_exc15_closing_on_error(x):
    log = []
    try:
        with contextlib.closing(_Closable(log)):
            raise ValueError
    except ValueError:
        log.append("caught")
    return x + len(log), tuple(log)


def c_exc15_exitstack_enter_context_suppress(x):
    with contextlib.ExitStack() as stack:
        stack.enter_context(contextlib.suppress(KeyError))
        x = x + 1
        {}["missing"]
        x = x + 100
    return x


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
