"""Round 11's generator and exception programs, for ``capture_count.py --only gens11``: written afresh after the
ideas of PyTorch's test/dynamo/test_generator.py and test_exceptions.py, favouring what the older areas leave out:
``send``/``throw``/``close`` reaching a delegated iterator, ``gi_yieldfrom``, values sent into subscript targets,
coroutine-style accumulators, PEP 479 inside generator expressions, notes and chains carried across calls,
exception groups split by a predicate, and exceptions kept past their ``except`` block. Each runs over one tensor.
"""

from __future__ import annotations


# -- generators: send / throw / close through delegation --------------------------------------------------------
class _Relay:
    """An iterator (not a generator) with its own ``send``/``throw``/``close``, as ``yield from`` target."""

    def __init__(self, log):
        self.log = log
        self.n = 0

    def __iter__(self):
        return self

    def __next__(self):
        self.n += 1
        return self.n

    def send(self, value):
        self.log.append(("send", value))
        self.n += 10
        return self.n

    def throw(self, typ, val=None, tb=None):
        self.log.append(("throw", typ.__name__ if isinstance(typ, type) else type(typ).__name__))
        return -1

    def close(self):
        self.log.append("close")


def c_gens11_yield_from_relay_send_throw(x):
    log = []

    def outer():
        yield from _Relay(log)

    g = outer()
    a = next(g)
    b = g.send(5)
    c = g.throw(KeyError("k"))
    g.close()
    return x * (a + b + c), log


def c_gens11_gi_yieldfrom(x):
    def inner():
        yield 1
        yield 2

    def outer():
        yield from inner()
        yield 3

    g = outer()
    before = g.gi_yieldfrom is None
    next(g)
    during = type(g.gi_yieldfrom).__name__
    next(g)
    next(g)
    after = g.gi_yieldfrom is None
    return x + 1, before, during, after


def c_gens11_throw_subgen_returns(x):
    def inner(t):
        try:
            yield t.sin()
        except ValueError as e:
            return t.cos() * len(e.args)
        yield t

    def outer(t):
        r = yield from inner(t)
        yield r + 1

    g = outer(x)
    a = next(g)
    b = g.throw(ValueError(1, 2))
    return a, b


def c_gens11_send_subscript_targets(x):
    def fill(buf):
        buf[(yield "first")] = buf[(yield "second")] = x.sum()

    buf = [x, x, x]
    g = fill(buf)
    tags = [g.send(None), g.send(2)]
    try:
        g.send(0)
    except StopIteration:
        tags.append("done")
    return buf, tags


def c_gens11_running_mean_coroutine(x):
    def mean():
        total, n = 0.0, 0
        avg = None
        while True:
            v = yield avg
            total = total + v
            n += 1
            avg = total / n

    m = mean()
    next(m)
    outs = [m.send(x * i) for i in range(1, 4)]
    m.close()
    return outs, m.gi_frame is None


def c_gens11_send_two_level_delegation(x):
    def leaf():
        acc = 0
        while True:
            v = yield acc
            if v is None:
                return acc
            acc += v

    def mid():
        r = yield from leaf()
        return r * 2

    def top():
        r = yield from mid()
        yield r

    g = top()
    next(g)
    for v in (1, 2, 3):
        g.send(v)
    final = g.send(None)
    return x + final, final


def c_gens11_close_inside_consumer_finally(x):
    log = []

    def gen():
        try:
            for i in range(5):
                yield x * i
        finally:
            log.append("gen-finally")

    g = gen()
    acc = x
    try:
        for i, v in enumerate(g):
            acc = acc + v
            if i == 2:
                break
    finally:
        g.close()
        log.append("consumer-finally")
    return acc, log


def c_gens11_genexp_pep479(x):
    empty = iter([])

    def make():
        return list(next(empty) for _ in range(3))

    try:
        make()
        kind = "none"
    except RuntimeError:
        kind = "runtime"
    except StopIteration:
        kind = "stop"
    return x + 1, kind


def c_gens11_stopiteration_value_manual(x):
    def gen(t):
        yield t
        return t * 3

    g = gen(x)
    first = next(g)
    try:
        next(g)
        value = None
    except StopIteration as e:
        value = e.value
    return first + value, g.gi_frame is None


def c_gens11_yield_as_call_args(x):
    def gen():
        r = max((yield "a"), (yield "b"))
        yield r

    g = gen()
    tags = [next(g), g.send(4)]
    top = g.send(9)
    return x * top, tags


def c_gens11_zip_strict_generator(x):
    def gen():
        yield x
        yield x + 1

    try:
        pairs = list(zip(gen(), range(3), strict=True))
        err = None
    except ValueError as e:
        pairs, err = None, str(e)
    return x.sum(), pairs, err


def c_gens11_recursive_yield_from_flatten(x):
    def flat(node):
        if isinstance(node, (list, tuple)):
            for child in node:
                yield from flat(child)
        else:
            yield node

    tree = [1, [2, (3, [4])], [[5]]]
    vals = list(flat(tree))
    return x * sum(vals), vals


def c_gens11_throw_generator_exit_runs_subgen_finally(x):
    log = []

    def inner():
        try:
            yield 1
        finally:
            log.append("inner")

    def outer():
        try:
            yield from inner()
        finally:
            log.append("outer")

    g = outer()
    next(g)
    try:
        g.throw(GeneratorExit)
    except GeneratorExit:
        log.append("caught")
    return x + len(log), log


def c_gens11_partial_consume_then_error(x):
    def gen():
        yield x
        yield x * 2
        raise KeyError("boom")

    got = []
    try:
        for v in gen():
            got.append(v)
    except KeyError as e:
        got.append(e.args[0])
    return got


def c_gens11_generator_in_with_return(x):
    import contextlib

    log = []

    @contextlib.contextmanager
    def cm():
        log.append("enter")
        yield 2
        log.append("exit")

    def gen():
        with cm() as k:
            yield x * k
            return
        yield x  # never reached

    return list(gen()), log


# -- exceptions across calls ------------------------------------------------------------------------------------
class _AppError(Exception):
    def __init__(self, code, detail):
        super().__init__(f"code {code}")
        self.code = code
        self.detail = detail


def _raise_app(t):
    raise _AppError(7, t.sum())


def _wrap_app(t):
    try:
        _raise_app(t)
    except _AppError as e:
        e.add_note("wrapped once")
        raise


def c_gens11_note_across_calls(x):
    try:
        _wrap_app(x)
    except _AppError as e:
        return x + e.code, e.detail, e.__notes__, e.args


def c_gens11_chain_across_three_calls(x):
    def low():
        raise KeyError("low")

    def mid():
        try:
            low()
        except KeyError as e:
            raise ValueError("mid") from e

    def high():
        try:
            mid()
        except ValueError:
            raise RuntimeError("high")  # noqa: B904

    try:
        high()
    except RuntimeError as e:
        chain = []
        cur = e
        while cur is not None:
            chain.append((type(cur).__name__, cur.__cause__ is not None, cur.__suppress_context__))
            cur = cur.__cause__ or cur.__context__
        return x + len(chain), chain


def c_gens11_exception_kept_after_block(x):
    saved = []
    for k in range(3):
        try:
            if k % 2:
                raise IndexError(k)
            [][k]
        except IndexError as e:
            saved.append(e)
    try:
        raise saved[1]
    except IndexError as e:
        again = e is saved[1]
    return x + len(saved), [s.args for s in saved], again


def c_gens11_except_name_unbound_after(x):
    try:
        raise ValueError("v")
    except ValueError as err:
        msg = str(err)
    try:
        err  # noqa: B018
        state = "bound"
    except NameError:
        state = "unbound"
    return x + 1, msg, state


def c_gens11_dynamic_except_tuple(x):
    kinds = tuple(k for k in (KeyError, IndexError, ZeroDivisionError) if k is not IndexError)
    out = []
    for f in (lambda: {}["a"], lambda: 1 // 0, lambda: [][1]):
        try:
            f()
        except kinds as e:
            out.append(type(e).__name__)
        except LookupError as e:
            out.append("lookup:" + type(e).__name__)
    return x * len(out), out


def c_gens11_exit_replaces_exception(x):
    class Guard:
        def __enter__(self):
            return self

        def __exit__(self, typ, val, tb):
            raise TypeError("from exit") from None

    try:
        with Guard():
            raise KeyError("inner")
    except TypeError as e:
        ctx = type(e.__context__).__name__
        return x + 1, str(e), ctx, e.__suppress_context__


def c_gens11_group_split_predicate(x):
    eg = ExceptionGroup("top", [ValueError(1), TypeError(2), ExceptionGroup("sub", [ValueError(30), KeyError(4)])])
    match, rest = eg.split(lambda e: (isinstance(e, ValueError) and e.args[0] > 10) or isinstance(e, KeyError))

    def leaves(g):
        if g is None:
            return []
        if isinstance(g, BaseExceptionGroup):
            return [leaf for e in g.exceptions for leaf in leaves(e)]
        return [(type(g).__name__, g.args[0])]

    return x + len(leaves(match)), leaves(match), leaves(rest), match.message


def c_gens11_except_star_tensor_handlers(x):
    out = x
    hits = []
    try:
        raise ExceptionGroup("g", [ValueError(2), TypeError(3), ValueError(5)])
    except* ValueError as eg:
        for e in eg.exceptions:
            out = out * e.args[0]
        hits.append(len(eg.exceptions))
    except* TypeError as eg:
        out = out + eg.exceptions[0].args[0]
        hits.append("T")
    return out, hits


def c_gens11_group_derive_keeps_notes(x):
    eg = ExceptionGroup("msg", [ValueError("a"), KeyError("b")])
    eg.add_note("note on group")
    sub = eg.subgroup(ValueError)
    return x + 1, sub.message, getattr(sub, "__notes__", None), [type(e).__name__ for e in sub.exceptions]


def c_gens11_exception_in_genexp_sum(x):
    vals = [1, 2, 0, 4]
    try:
        total = sum(x / v if v else 1 // v for v in vals)
    except ZeroDivisionError as e:
        total = x * 0
        msg = str(e)
    return total, msg


def c_gens11_str_repr_override(x):
    class Loud(Exception):
        def __str__(self):
            return "LOUD:" + ",".join(map(str, self.args))

    e = Loud(1, "two")
    return x + len(str(e)), str(e), repr(e), e.args


def c_gens11_gi_code_of_made_generator(x):
    def counting():
        yield 1

    g = counting()
    code = g.gi_code
    return x + code.co_argcount, code.co_name, code is counting.__code__


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
