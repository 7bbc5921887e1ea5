"""A third round of small programs after Paddle's SOT tests (test/sot/ in PaddlePaddle/Paddle), written with
torch, for ``capture_count.py --only paddle_sot3``: raising and catching through nested try blocks and calls
(test_24_exceptions), context managers whose ``__exit__`` decides (test_25_with), list and dict edits by slice,
key and position (test_mutable_data). Objects made in the frame and callables passed in are in
``capture_count_paddle_sot3_calls.py``.
"""

from __future__ import annotations

import torch


# -- raising and catching (test_24_exceptions) ------------------------------------------------------------
def c_ps3_reraise_zero_division_caught_bare(x):
    x = x + 1
    try:
        try:
            x = x + 2
            _ = 10 / 0
        except ZeroDivisionError:
            x = x + 3
            raise
    except:  # noqa: E722 - the bare handler is the construct
        x = x + 4
    return x + 5


def c_ps3_raise_from_none_in_finally(x):
    x = x - 10
    try:
        try:
            x = x - 300
        finally:
            x = x - 400
            raise ValueError from None
    except ValueError as e:
        x = x - 500
        suppressed = e.__suppress_context__
    return x - 600, suppressed


def c_ps3_raise_from_named_error(x):
    try:
        x = x + 1
        try:
            x = x / 2
            raise NameError
        except NameError as e:
            x = x - 4
            raise TimeoutError("TESTING") from e
    except Exception as outer:
        x = x / 5
        cause = type(outer.__cause__).__name__
    return x + 6, cause


def c_ps3_unmatched_then_tuple_handler(x):
    try:
        try:
            x = x - 1
            raise ValueError("TESTING")
        except NotImplementedError:
            x = x / 3
            raise
    except (KeyError, IndexError):
        x = x * 4
    except ValueError as e:
        x = x + 5
        msg = e.args
    return x, msg


def c_ps3_builtin_exception_objects(x):
    def identity(e):
        return e

    made = [identity(ValueError()), identity(TypeError("")), identity(KeyError("")), identity(Exception("")),
            identity(UnicodeTranslateError("", -1, -1, ""))]
    return x + len(made), [type(e).__name__ for e in made], made[-1].start, str(made[2])


class _Owner:
    @staticmethod
    def raise_with_class_name(x):
        y = x + 3
        try:
            x = x + 1
            raise ValueError(f"{__class__.__name__}")
        except ValueError as e:
            y = x * 2
            text = str(e)
        return y, text


def c_ps3_raise_with_class_cell_name(x):
    return _Owner.raise_with_class_name(x)


def c_ps3_return_in_finally_silences(x):
    def inner(x):
        try:
            x = 3 + x
            raise NotImplementedError("TESTING!")
        finally:
            x = x * 2
            return x  # noqa: B012 - silencing is the construct

    return inner(x) + 1


def c_ps3_finally_raises_after_return(x):
    def inner(x):
        try:
            x = 3 + x
            return x
        finally:
            x = x * 2
            raise TimeoutError("TESTING!")

    try:
        return inner(x)
    except TimeoutError as e:
        return x - 1, e.args


def c_ps3_else_finally_with_matched(x):
    try:
        x = x - 1
        raise ValueError
    except ValueError:
        x = x - 2
    else:
        x = x - 3
    finally:
        x = x - 4
    try:
        x = x - 1
    except NotImplementedError:
        x = x - 2
    else:
        x = x - 3
    finally:
        x = x - 4
    return x


def c_ps3_error_in_else_reaches_caller(x):
    def inner(x):
        try:
            x = x + 4
        except KeyError:
            x = x + 5
        else:
            x = x + 6
            raise ValueError("Testing!")
        return x

    try:
        return inner(x)
    except ValueError as e:
        return x * 2, str(e)


def c_ps3_six_nested_try_blocks(x):
    try:
        try:
            try:
                try:
                    try:
                        try:
                            x = x - 1
                            raise ValueError("TESTING")
                        except NotImplementedError:
                            x = x / 3
                            raise
                    except (KeyError, IndexError):
                        x = x * 4
                    except ValueError:
                        x = x + 5
                        raise NameError  # noqa: B904
                except SyntaxError:
                    x = x / 6
                except (TypeError, FileNotFoundError, NameError) as e:
                    x = x - 7
                    raise TimeoutError("TESTING") from e
            except:  # noqa: E722
                x = x / 8
                raise AssertionError  # noqa: B904
        except IndentationError:
            x = x * 9
        except AssertionError:
            x = x + 10
            raise
    except Exception:
        x = x / 11
    return x + 12


def _raise_zero_div(x):
    x = x + 3
    return 19.0 / 0


def _raise_assert_empty(x):
    x = x + 4
    assert []  # always false: the construct


def _raise_not_implemented(x):
    x = x + 5
    raise NotImplementedError


def _three_nesting(x, func):
    x = x - 8

    def two(x):
        x = x / 7

        def one(x):
            x = x * 6
            func(x)

        one(x)

    two(x)


def c_ps3_error_through_three_calls(x):
    out = []
    for func in (_raise_zero_div, _raise_assert_empty, _raise_not_implemented):
        y = x
        try:
            y = y + 1
            try:
                y = y / 2
                _three_nesting(y, func)
                y = y - 3
            except ValueError:
                y = y * 4
        except:  # noqa: E722
            y = y + 5
        out.append(y)
    return out


def c_ps3_assert_on_python_values_in_try(x):
    out = []
    for condition in (False, True, [], [1], "", "QAQ"):
        y = x
        try:
            y = y + 1
            try:
                y = y / 2
                raise TimeoutError("TESTING")
            except:  # noqa: E722
                y = y - 3
                assert condition
        except:  # noqa: E722
            y = y * 4
        out.append(y / 5)
    return out


def c_ps3_assert_comparison_of_int_argument(x, y):
    x = x + 1
    try:
        x = x + 2
        assert y > -10000
        x = x + 3
        assert y < -10000
    except AssertionError:
        x = x + 4
    return x


c_ps3_assert_comparison_of_int_argument.extra_args = lambda: (10,)


def c_ps3_modulo_by_zero_message(x):
    try:
        _ = 2 % 0
    except ZeroDivisionError as e:
        return x + 1, str(e)


def c_ps3_exception_raised_then_returned(x):
    try:
        raise KeyError("k")
    except KeyError as e:
        err = e
    return x + 1, err.args, repr(err)


# -- context managers whose exit decides (test_25_with) ------------------------------------------------------
class _Manager:
    def __enter__(self):
        return self

    def __exit__(self, exc, value, traceback):
        pass


class _ExitFalse(_Manager):
    def __exit__(self, *args):
        return False


class _ExitTrue(_Manager):
    def __exit__(self, *args):
        return True


def c_ps3_exit_true_suppresses_raise(x):
    with _ExitTrue():
        x = x * 3
        raise ValueError("test")
    return x


def c_ps3_exit_true_suppresses_zero_division(x):
    with _ExitTrue() as mgr:
        x = x + 5
        _ = 1 / 0
    return x, type(mgr).__name__


def c_ps3_exit_false_propagates_to_handler(x):
    try:
        with _ExitFalse():
            x = x * 4
            _ = 1 / 0
    except ZeroDivisionError:
        x = x / 4
    return x


def c_ps3_manager_as_target_unused(x):
    with _Manager() as mgr:
        x = x * 2
    return x, mgr is not None


class _Recording:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("enter")
        return len(self.log)

    def __exit__(self, exc_type, exc, tb):
        self.log.append(exc_type.__name__ if exc_type else "clean")
        return exc_type is KeyError


def c_ps3_exit_sees_exception_type(x):
    log = []
    with _Recording(log) as n:
        x = x + n
    with _Recording(log):
        x = x * 2
        raise KeyError("k")
    try:
        with _Recording(log):
            raise IndexError("i")
    except IndexError:
        x = x - 1
    return x, log


class _SoftmaxNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(3, 4)

    def forward(self, x):
        with torch.autocast("cpu", enabled=False):
            return self._forward(x)

    def _forward(self, x):
        return self.layer(x)


def c_ps3_module_forward_under_disabled_autocast(x, net):
    return net(x)


c_ps3_module_forward_under_disabled_autocast.extra_args = lambda: (_SoftmaxNet(),)


# -- list and dict edits (test_mutable_data) ----------------------------------------------------------------
def c_ps3_list_slice_replace_shorter(x):
    data = [1, 2, 3, 4, 5, 6, 7]
    data[0:3] = [4, 5]
    data[4:1:-1] = [8, 9, 10]
    data[1:5:2] = [x, x + 1]
    return data


def c_ps3_list_slice_reads_negative_step(x):
    data = [1, 2, 3, 4, 5, 6, 7]
    return x + sum(data[4:1:-1]), data[1:5:2], data[::-2], data[-100:100], data[5:2]


def c_ps3_list_extended_slice_wrong_length(x):
    data = [1, 2, 3, 4]
    try:
        data[::2] = [x]
    except ValueError as e:
        return x + 1, str(e), data


def c_ps3_list_del_pop_index_errors(x):
    data = [1, 2, 3]
    del data[0]
    errors = []
    try:
        data[2]
    except IndexError as e:
        errors.append(str(e))
    data.pop()
    try:
        [].pop()
    except IndexError as e:
        errors.append(str(e))
    try:
        data.remove(99)
    except ValueError as e:
        errors.append(str(e))
    return x + len(data), errors, data


def c_ps3_list_sort_key_reverse_and_reverse(x):
    data = [-1, -4, 2, 0, 5, -3]
    data.sort(key=lambda v: v**2)
    other = [2, 3, 0, 4, 1, 5]
    other.sort(reverse=True)
    third = [2, 3, 0, 4, 1, 5]
    third.reverse()
    return x + data[0] + other[0] + third[0], data, other, third


def c_ps3_list_insert_clear_extend(x):
    data = [1, 2, 3]
    data.insert(0, 4)
    data.insert(2, x)
    data.insert(-1, 7)
    data.insert(100, 8)
    n = len(data)
    data.extend(iter([5, 6]))
    copy = data[:]
    data.clear()
    return copy, n, data


def c_ps3_dict_set_delete_keys_order(x):
    d = {"a": 1, "b": 2}
    d["a"] = 3
    d["c"] = x
    del d["a"]
    d["a"] = 5
    try:
        d["missing"]
    except KeyError as e:
        missing = e.args
    return list(d.keys()), d["c"] + d["a"], missing


def c_ps3_dict_argument_edits_returned(x, d):
    d["new"] = x + 1
    del d["old"]
    d.update(extra=2)
    return d


c_ps3_dict_argument_edits_returned.extra_args = lambda: ({"old": 1, "keep": 2},)


def c_ps3_list_argument_slice_assign(x, data):
    data[1:3] = [x, x * 2, x * 3]
    del data[-1]
    data[::2] = [0] * len(data[::2])
    return x + 1


c_ps3_list_argument_slice_assign.extra_args = lambda: ([1, 2, 3, 4, 5],)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
