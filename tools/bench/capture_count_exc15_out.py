"""Exceptions, generators and context managers that leave the compiled frame (round exc15, after PyTorch's
test_exceptions.py test_reconstruct___context__ and test_generator.py's returned generators), for
``capture_count.py --only exc15``: caught exceptions returned with their context, cause, args holding tensors
and notes; half-consumed generators and contextlib managers returned; exceptions carrying tensors through
handlers, each written afresh over one tensor.
"""

from __future__ import annotations

import contextlib


def c_exc15_return_exc_with_context(x):
    v = ValueError(1, 2)
    v.__context__ = TypeError("t")
    return x.sin(), type(v).__name__, v.args, type(v.__context__).__name__


def c_exc15_return_caught_exc_with_cause(x):
    try:
        try:
            raise KeyError("a")
        except KeyError as e:
            raise RuntimeError("b") from e
    except RuntimeError as e2:
        got = e2
    return x + 1, got.args, type(got.__cause__).__name__, got.__suppress_context__


def c_exc15_exc_args_hold_tensor(x):
    try:
        raise ValueError(x * 2)
    except ValueError as e:
        t = e.args[0]
    return t + 1


def c_exc15_exc_tensor_from_helper(x):
    def check(t):
        y = t.cos()
        raise LookupError(y, "why")

    try:
        check(x)
    except LookupError as e:
        return e.args[0] * 3, e.args[1]


def c_exc15_return_half_consumed_gen(x):
    def gen(t):
        yield t + 1
        yield t + 2
        yield t + 3

    g = gen(x)
    first = next(g)
    return first, list(g)


def c_exc15_gen_throw_carries_tensor(x):
    def gen():
        try:
            yield 0
        except ValueError as e:
            yield e.args[0] * 2

    g = gen()
    next(g)
    return g.throw(ValueError(x.sin()))


def c_exc15_cm_exit_sees_tensor_exc(x):
    seen = []

    class Watch:
        def __enter__(self):
            return self

        def __exit__(self, typ, val, tb):
            if val is not None:
                seen.append(val.args[0] + 1)
            return True

    with Watch():
        raise KeyError(x * 4)
    return seen[0]


def c_exc15_exc_list_returned(x):
    errs = []
    for kind in (KeyError, ValueError, IndexError):
        try:
            raise kind(kind.__name__)
        except Exception as e:
            errs.append(e)
    return x + len(errs), [type(e).__name__ for e in errs], [e.args[0] for e in errs]


def c_exc15_exc_stored_on_object(x):
    class Box:
        pass

    b = Box()
    try:
        raise OSError(2, "nf")
    except OSError as e:
        b.err = e
    return x + b.err.errno, b.err.strerror


def c_exc15_group_returned_fields(x):
    try:
        raise ExceptionGroup("many", [ValueError(x.sum()), TypeError("t")])
    except* ValueError as eg:
        first = eg.exceptions[0].args[0]
    except* TypeError:
        pass
    return first + 1


def c_exc15_contextmanager_object_reused_error(x):
    @contextlib.contextmanager
    def cm():
        yield 3

    c = cm()
    with c as v:
        y = x * v
    try:
        with c:
            y = y + 100
        again = True
    except (RuntimeError, AttributeError):
        again = False
    return y, again


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
