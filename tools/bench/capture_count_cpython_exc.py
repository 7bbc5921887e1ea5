"""Programs after the CPython tests PyTorch runs under Dynamo (``test/dynamo/cpython/3_13``), for
``capture_count.py --only cpython_exc``: test_exceptions and test_baseexception (builtin kinds, args, str/repr,
user classes, chaining, ``sys.exc_info()``). Each program does tensor work before and after the construct and
feeds the construct's result into its output, so the frame is compiled. test_exception_variations and test_raise
are in ``capture_count_cpython_exc_more.py``; generators and contextlib in ``capture_count_cpython_exc_gen.py``.
"""

from __future__ import annotations


class _MyError(Exception):
    pass


class _MyKeyError(KeyError):
    pass


class _WithInit(Exception):
    def __init__(self, code, msg="m"):
        super().__init__(code, msg)
        self.code = code


class _WithStr(Exception):
    def __str__(self):
        return "custom"


# ---- test_exceptions: raising and catching the builtin kinds ----

def c_ce_raise_catch_each_builtin(x):
    x = x + 1
    n = 0
    for kind in (AttributeError, ImportError, IndexError, KeyError, NameError, OverflowError,
                 RuntimeError, TypeError, ValueError, ZeroDivisionError):
        try:
            raise kind("spam")
        except kind as exc:
            n += len(exc.args)
    return x * n


def c_ce_exception_args_tuple(x):
    x = x.sin()
    e = ValueError(1, "two", 3.0)
    return x + len(e.args) + e.args[0]


def c_ce_exception_no_args_str(x):
    x = x.cos()
    e = RuntimeError()
    return x + len(str(e)) + len(e.args)


def c_ce_exception_one_arg_str(x):
    x = x * 2
    e = ValueError("hello")
    return x + len(str(e))


def c_ce_exception_repr(x):
    x = x - 1
    r = repr(TypeError("a", 2))
    return x + len(r)


def c_ce_zero_division_int(x):
    x = x + 3
    try:
        1 // 0  # noqa: B018
    except ZeroDivisionError as exc:
        x = x * len(exc.args)
    return x.relu()


def c_ce_index_error_list(x):
    x = x.exp()
    try:
        [1, 2][5]
    except IndexError:
        x = x - 1
    return x


def c_ce_key_error_args(x):
    x = x.abs()
    try:
        {}["k"]
    except KeyError as exc:
        x = x + len(exc.args[0])
    return x


def c_ce_key_error_str_quotes(x):
    x = x + 1
    s = str(KeyError("k"))
    return x * len(s)


def c_ce_attribute_error_object(x):
    x = x.tanh()
    try:
        object().nope  # noqa: B018
    except AttributeError:
        x = x + 10
    return x


def c_ce_name_error_lookup(x):
    x = x * 3
    try:
        _surely_not_defined_anywhere  # noqa: B018
    except NameError:
        x = x + 2
    return x


def c_ce_type_error_call(x):
    x = x.sigmoid()
    try:
        len(5)
    except TypeError:
        x = x * 4
    return x


def c_ce_value_error_int_parse(x):
    x = x + 2
    try:
        int("zz")
    except ValueError as exc:
        x = x + len(exc.args)
    return x


def c_ce_overflow_float(x):
    x = x.cos()
    try:
        float("1e400") and int(float("inf"))
    except OverflowError:
        x = x + 7
    return x


def c_ce_catch_by_base_class(x):
    x = x + 1
    try:
        raise _MyKeyError("k")
    except LookupError as exc:
        x = x + isinstance(exc, KeyError)
    return x


def c_ce_catch_tuple_of_classes(x):
    x = x * 2
    caught = []
    for kind in (TypeError, ValueError, KeyError):
        try:
            raise kind()
        except (TypeError, KeyError) as exc:
            caught.append(type(exc).__name__)
        except ValueError:
            caught.append("v")
    return x + len("".join(caught))


def c_ce_user_exception_init_attrs(x):
    x = x.sin()
    try:
        raise _WithInit(5)
    except _WithInit as exc:
        x = x + exc.code + len(exc.args)
    return x


def c_ce_user_exception_str_override(x):
    x = x + 1
    try:
        raise _WithStr("ignored")
    except _WithStr as exc:
        x = x * len(str(exc))
    return x


def c_ce_exception_name_cleared(x):
    x = x + 1
    try:
        raise ValueError
    except ValueError as e:  # noqa: F841
        pass
    try:
        e  # noqa: B018
        found = 1
    except NameError:
        found = 0
    return x + found


def c_ce_exception_attribute_set(x):
    x = x - 2
    exc = ValueError("v")
    exc.extra = 3
    return x * exc.extra


def c_ce_with_traceback_none(x):
    x = x.cos()
    exc = RuntimeError("r").with_traceback(None)
    return x + (exc.__traceback__ is None)


def c_ce_args_reassigned(x):
    x = x + 1
    exc = ValueError(1)
    exc.args = (1, 2, 3)
    return x + len(exc.args)


def c_ce_nested_try_inner_reraise(x):
    x = x * 2
    try:
        try:
            raise KeyError("a")
        except KeyError:
            x = x + 1
            raise
    except KeyError as exc:
        x = x + len(exc.args)
    return x


def c_ce_finally_runs_on_return(x):
    log = []

    def inner(t):
        try:
            return t + 1
        finally:
            log.append(1)
    x = inner(x.sin())
    return x + len(log)


def c_ce_finally_runs_on_break(x):
    x = x + 1
    n = 0
    for i in range(5):
        try:
            if i == 2:
                break
        finally:
            n += 1
    return x * n


def c_ce_finally_runs_on_continue(x):
    x = x.abs()
    n = 0
    for i in range(4):
        try:
            if i % 2:
                continue
            x = x + 1
        finally:
            n += 1
    return x + n


def c_ce_exception_in_except_context(x):
    x = x + 1
    try:
        try:
            raise ValueError("first")
        except ValueError:
            raise TypeError("second")  # noqa: B904
    except TypeError as exc:
        ctx = exc.__context__
        x = x + isinstance(ctx, ValueError)
    return x


def c_ce_context_suppressed_by_from_none(x):
    x = x * 3
    try:
        try:
            raise ValueError
        except ValueError:
            raise KeyError from None
    except KeyError as exc:
        x = x + exc.__suppress_context__ + (exc.__cause__ is None)
    return x


def c_ce_raise_from_cause(x):
    x = x + 1
    try:
        raise RuntimeError("outer") from IndexError("inner")
    except RuntimeError as exc:
        x = x + isinstance(exc.__cause__, IndexError)
    return x


def c_ce_exc_info_inside_handler(x):
    import sys
    x = x.sin()
    try:
        raise ValueError("q")
    except ValueError:
        kind, value, _ = sys.exc_info()
        x = x + (kind is ValueError) + len(value.args)
    return x


def c_ce_exc_info_cleared_after(x):
    import sys
    x = x + 1
    try:
        raise ValueError
    except ValueError:
        pass
    return x + (sys.exc_info()[0] is None)


def c_ce_exception_method_call(x):
    x = x + 2
    e = _WithInit(4, "z")
    return x * e.args[0] + len(e.args[1])


# ---- test_baseexception ----

def c_ce_base_exception_hierarchy(x):
    x = x.cos()
    n = (issubclass(Exception, BaseException) + issubclass(KeyboardInterrupt, BaseException)
         + (not issubclass(KeyboardInterrupt, Exception)) + issubclass(GeneratorExit, BaseException)
         + issubclass(StopIteration, Exception))
    return x + n


def c_ce_base_exception_catch_systemexit(x):
    x = x + 1
    try:
        raise SystemExit(3)
    except BaseException as exc:
        x = x + exc.code
    return x


def c_ce_base_exception_interface(x):
    x = x * 2
    e = BaseException("a")
    n = hasattr(e, "args") + hasattr(e, "with_traceback") + hasattr(e, "__traceback__")
    return x + n + len(str(e))


def c_ce_raise_non_exception_type_error(x):
    x = x + 1
    try:
        raise 5  # noqa: B016
    except TypeError:
        x = x * 3
    return x


def c_ce_catch_non_exception_class_type_error(x):
    x = x - 1
    try:
        try:
            raise ValueError
        except int:
            x = x + 100
    except TypeError:
        x = x + 1
    return x


def c_ce_raise_class_instantiated(x):
    x = x.exp()
    try:
        raise KeyError
    except KeyError as exc:
        x = x + len(exc.args) + isinstance(exc, KeyError)
    return x


CONSTRUCTS = [
    c_ce_raise_catch_each_builtin, c_ce_exception_args_tuple, c_ce_exception_no_args_str,
    c_ce_exception_one_arg_str, c_ce_exception_repr, c_ce_zero_division_int, c_ce_index_error_list,
    c_ce_key_error_args, c_ce_key_error_str_quotes, c_ce_attribute_error_object, c_ce_name_error_lookup,
    c_ce_type_error_call, c_ce_value_error_int_parse, c_ce_overflow_float, c_ce_catch_by_base_class,
    c_ce_catch_tuple_of_classes, c_ce_user_exception_init_attrs, c_ce_user_exception_str_override,
    c_ce_exception_name_cleared, c_ce_exception_attribute_set, c_ce_with_traceback_none, c_ce_args_reassigned,
    c_ce_nested_try_inner_reraise, c_ce_finally_runs_on_return, c_ce_finally_runs_on_break,
    c_ce_finally_runs_on_continue, c_ce_exception_in_except_context, c_ce_context_suppressed_by_from_none,
    c_ce_raise_from_cause, c_ce_exc_info_inside_handler, c_ce_exc_info_cleared_after, c_ce_exception_method_call,
    c_ce_base_exception_hierarchy, c_ce_base_exception_catch_systemexit, c_ce_base_exception_interface,
    c_ce_raise_non_exception_type_error, c_ce_catch_non_exception_class_type_error, c_ce_raise_class_instantiated,
]
