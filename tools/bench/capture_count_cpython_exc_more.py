"""More programs after CPython's exception tests PyTorch runs under Dynamo, for ``capture_count.py --only
cpython_exc``: test_exception_variations (every try/except/else/finally shape) and test_raise (bare re-raise,
``raise ... from``, ``__cause__``/``__context__``), each with tensor work around the construct.
"""

from __future__ import annotations

import torch


class _MyError(Exception):
    pass


# ---- test_exception_variations ----

def c_ce_var_try_except_no_raise(x):
    x = x + 1
    hit_except = False
    try:
        x = x * 2
    except Exception:
        hit_except = True
    return x + hit_except


def c_ce_var_try_except_else(x):
    x = x.sin()
    e, el = 0, 0
    try:
        x = x + 1
    except Exception:
        e = 1
    else:
        el = 1
    return x + e + el


def c_ce_var_try_except_else_finally_raised(x):
    x = x.cos()
    e = el = f = 0
    try:
        raise ValueError
    except ValueError:
        e = 1
    else:
        el = 1
    finally:
        f = 1
    return x + e * 4 + el * 2 + f


def c_ce_var_try_finally_no_except(x):
    x = x + 1
    f = 0
    try:
        x = x * 2
    finally:
        f = 1
    return x + f


def c_ce_var_nested_else(x):
    x = x + 1
    marks = []
    try:
        try:
            x = x + 1
        except ValueError:
            marks.append("e1")
        else:
            marks.append("else1")
            raise KeyError
    except KeyError:
        marks.append("e2")
    else:
        marks.append("else2")
    return x * len(marks)


def c_ce_var_nested_finally_order(x):
    x = x * 2
    order = []
    try:
        try:
            raise ValueError
        finally:
            order.append(1)
    except ValueError:
        order.append(2)
    finally:
        order.append(3)
    return x + sum(i * k for i, k in enumerate(order))


def c_ce_var_raise_in_else_escapes(x):
    x = x + 1
    try:
        try:
            x = x * 2
        except KeyError:
            x = x + 100
        else:
            raise TypeError("from else")
    except TypeError:
        x = x - 1
    return x


def c_ce_var_raise_in_finally_replaces(x):
    x = x + 1
    try:
        try:
            raise KeyError
        finally:
            raise ValueError
    except ValueError as exc:
        x = x + isinstance(exc.__context__, KeyError)
    except KeyError:
        x = x + 100
    return x


# ---- test_raise ----

def c_ce_raise_bare_reraise(x):
    x = x.sin()
    try:
        try:
            raise IndexError("i")
        except IndexError:
            raise
    except IndexError as exc:
        x = x + len(exc.args)
    return x


def c_ce_raise_bare_outside_handler(x):
    x = x + 1
    try:
        raise
    except RuntimeError:
        x = x * 2
    return x


def c_ce_reraise_after_nested_handled(x):
    x = x + 1
    try:
        try:
            raise TypeError("outer")
        except TypeError:
            try:
                raise KeyError("inner")
            except KeyError:
                pass
            raise
    except TypeError as exc:
        x = x + len(exc.args[0])
    return x


def c_ce_raise_from_class_cause(x):
    x = x * 2
    try:
        raise TypeError from IndexError
    except TypeError as exc:
        x = x + isinstance(exc.__cause__, IndexError)
    return x


def c_ce_raise_from_bad_cause(x):
    x = x + 1
    try:
        raise IndexError from 5
    except TypeError:
        x = x + 2
    except IndexError:
        x = x + 100
    return x


def c_ce_cause_set_by_hand(x):
    x = x + 1
    e = ValueError("v")
    e.__cause__ = KeyError("k")
    try:
        raise e
    except ValueError as exc:
        x = x + isinstance(exc.__cause__, KeyError) + exc.__suppress_context__
    return x


def c_ce_context_cycle_broken(x):
    x = x.cos()
    try:
        try:
            raise ValueError("a")
        except ValueError as a:
            try:
                raise KeyError("b")
            except KeyError as b:
                b.__context__ = None
                raise a  # noqa: B904
    except ValueError as exc:
        x = x + (exc.__context__ is None)
    return x


def c_ce_raise_instance_twice(x):
    x = x + 1
    e = RuntimeError("same")
    n = 0
    for _ in range(2):
        try:
            raise e
        except RuntimeError as exc:
            n += exc is e
    return x * n


def c_ce_context_on_nested_handler(x):
    x = x + 1
    try:
        try:
            raise ValueError
        except ValueError:
            try:
                raise TypeError
            except TypeError as inner:
                x = x + isinstance(inner.__context__, ValueError)
                raise
    except TypeError:
        x = x + 1
    return x


def c_ce_raise_in_callee_caught(x):
    def thrower(t):
        t = t + 1
        raise _MyError(t.shape[0])
    x = x.sin()
    try:
        thrower(x)
    except _MyError as exc:
        x = x + exc.args[0]
    return x


def c_ce_exception_escapes_frame(x):
    x = x + 1
    raise _MyError("escapes")


def c_ce_exception_escapes_after_work(x):
    x = x.cos()
    if x.shape[0] > 0:
        raise ValueError("shape")
    return x


# ---- the text of an exception raised by a call that runs natively (a break in the ``try``) ----

@torch._disable_dynamo
def _native_raise(cls, *args):
    raise cls(*args)


def c_ce_native_error_text(x):
    try:
        _native_raise(ValueError, "bad shape", x.shape[0])
    except ValueError as e:
        return x + len(str(e)), repr(e), f"{e}"
    return x


def c_ce_native_key_error_text(x):
    try:
        _native_raise(KeyError, "weight")
    except KeyError as e:
        return x * 2, str(e), e.args
    return x


CONSTRUCTS = [
    c_ce_var_try_except_no_raise, c_ce_var_try_except_else, c_ce_var_try_except_else_finally_raised,
    c_ce_var_try_finally_no_except, c_ce_var_nested_else, c_ce_var_nested_finally_order,
    c_ce_var_raise_in_else_escapes, c_ce_var_raise_in_finally_replaces, c_ce_raise_bare_reraise,
    c_ce_raise_bare_outside_handler, c_ce_reraise_after_nested_handled, c_ce_raise_from_class_cause,
    c_ce_raise_from_bad_cause, c_ce_cause_set_by_hand, c_ce_context_cycle_broken, c_ce_raise_instance_twice,
    c_ce_context_on_nested_handler, c_ce_raise_in_callee_caught, c_ce_exception_escapes_frame,
    c_ce_exception_escapes_after_work, c_ce_native_error_text, c_ce_native_key_error_text,
]
