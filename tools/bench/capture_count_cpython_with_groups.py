"""The test_exception_group programs for ``capture_count.py --only cpython_with``, after the CPython test PyTorch
runs under Dynamo: ``ExceptionGroup``/``BaseExceptionGroup`` construction and its errors, ``exceptions``,
``message``, ``str``, ``split``/``subgroup`` by type and by predicate, ``derive`` (default and overridden),
nesting and ``add_note``. Each program does tensor work before and after the construct and feeds the construct's
result into its output, so the frame is compiled.
"""

from __future__ import annotations


def _leaves(exc):
    """The leaf exceptions of a (possibly nested) group, depth first."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for sub in exc.exceptions for leaf in _leaves(sub)]
    return [exc]


class _MyGroup(ExceptionGroup):
    pass


class _WithCode(ExceptionGroup):
    """A group subclass whose ``derive`` keeps an extra attribute."""

    def __new__(cls, message, excs, code):
        obj = super().__new__(cls, message, excs)
        obj.code = code
        return obj

    def derive(self, excs):
        return _WithCode(self.message, excs, self.code)


# ---- test_exception_group: construction ----

def c_cw_group_basic_fields(x):
    x = x + 1
    eg = ExceptionGroup("msg", [ValueError(1), TypeError(2)])
    return x + len(eg.message) + len(eg.exceptions) + isinstance(eg.exceptions, tuple) + eg.exceptions[0].args[0]


def c_cw_group_str(x):
    x = x.sin()
    one = str(ExceptionGroup("flat", [ValueError(1)]))
    two = str(ExceptionGroup("flat", [ValueError(1), TypeError(2)]))
    return x + len(one) + len(two) + ("2 sub-exceptions" in two)


def c_cw_group_is_exception_subclass(x):
    x = x * 2
    eg = ExceptionGroup("e", [ValueError()])
    return x + isinstance(eg, Exception) + isinstance(eg, BaseExceptionGroup) + issubclass(ExceptionGroup, Exception)


def c_cw_base_group_becomes_exception_group(x):
    x = x + 2
    beg = BaseExceptionGroup("beg", [ValueError(1), TypeError(2)])
    return x + (type(beg) is ExceptionGroup)


def c_cw_base_group_keeps_base_exceptions(x):
    x = x - 1
    beg = BaseExceptionGroup("beg", [ValueError(1), KeyboardInterrupt(2)])
    return x + (type(beg) is BaseExceptionGroup) + isinstance(beg, Exception)


def c_cw_group_with_base_exception_type_error(x):
    x = x.cos()
    try:
        ExceptionGroup("eg", [ValueError(1), KeyboardInterrupt(2)])
    except TypeError:
        x = x + 1
    return x


def c_cw_group_bad_message_type_error(x):
    x = x * 3
    try:
        ExceptionGroup(42, [ValueError()])
    except TypeError:
        x = x + 1
    return x


def c_cw_group_empty_list_value_error(x):
    x = x + 3
    try:
        ExceptionGroup("eg", [])
    except ValueError:
        x = x + 1
    return x


def c_cw_group_non_exception_member_value_error(x):
    x = x.exp()
    try:
        ExceptionGroup("eg", [ValueError(1), 42])
    except ValueError:
        x = x + 1
    return x


def c_cw_group_subclass_construct(x):
    x = x + 1
    eg = _MyGroup("mine", [ValueError(1)])
    return x + isinstance(eg, ExceptionGroup) + (type(eg) is _MyGroup) + len(eg.exceptions)


# ---- test_exception_group: split, subgroup, derive ----

def c_cw_group_split_by_type(x):
    x = x * 2
    eg = ExceptionGroup("eg", [ValueError(1), TypeError(2), ValueError(3)])
    match, rest = eg.split(ValueError)
    return x + len(match.exceptions) + len(rest.exceptions) + (match.message == "eg")


def c_cw_group_split_by_predicate(x):
    x = x + 1
    eg = ExceptionGroup("eg", [ValueError(1), ValueError(2), ValueError(3)])
    match, rest = eg.split(lambda e: isinstance(e, ValueError) and e.args[0] > 1)
    return x + match.exceptions[0].args[0] + len(rest.exceptions)


def c_cw_group_split_all_or_none(x):
    x = x.sin()
    eg = ExceptionGroup("eg", [ValueError(1), TypeError(2)])
    match, rest = eg.split(Exception)
    none_match, all_rest = eg.split(KeyError)
    return x + (match is eg) + (rest is None) + (none_match is None) + (all_rest is eg)


def c_cw_group_subgroup(x):
    x = x - 1
    eg = ExceptionGroup("eg", [ValueError(1), TypeError(2), ExceptionGroup("inner", [TypeError(3)])])
    sub = eg.subgroup(TypeError)
    return x + len(sub.exceptions) + len(_leaves(sub)) + (eg.subgroup(KeyError) is None)


def c_cw_group_nested_leaves(x):
    x = x + 2
    eg = ExceptionGroup("a", [ValueError(1), ExceptionGroup("b", [TypeError(2), ExceptionGroup("c", [KeyError(3)])])])
    return x + sum(e.args[0] for e in _leaves(eg))


def c_cw_group_split_keeps_metadata(x):
    x = x * 2
    eg = ExceptionGroup("eg", [ValueError(1), TypeError(2)])
    eg.__cause__ = KeyError("cause")
    eg.add_note("note one")
    match, rest = eg.split(ValueError)
    return x + (match.__cause__ is eg.__cause__) + len(rest.__notes__) + (rest.__notes__ == ["note one"])


def c_cw_group_derive_default(x):
    x = x.cos()
    eg = _MyGroup("mine", [ValueError(1), TypeError(2)])
    match, _rest = eg.split(ValueError)
    derived = eg.derive([KeyError(0)])
    return x + (type(match) is ExceptionGroup) + (type(derived) is ExceptionGroup) + (derived.message == "mine")


def c_cw_group_derive_override(x):
    x = x + 1
    eg = _WithCode("coded", [ValueError(1), TypeError(2)], 7)
    match, rest = eg.split(TypeError)
    return x + match.code + rest.code + (type(match) is _WithCode)


def c_cw_group_add_note(x):
    x = x - 2
    eg = ExceptionGroup("eg", [ValueError(1)])
    eg.add_note("first")
    eg.add_note("second")
    return x + len(eg.__notes__) + len(eg.__notes__[1])


def c_cw_group_add_note_type_error(x):
    x = x * 3
    eg = ExceptionGroup("eg", [ValueError(1)])
    try:
        eg.add_note(42)
    except TypeError:
        x = x + 1
    return x + (getattr(eg, "__notes__", None) is None)


def c_cw_group_caught_by_plain_except(x):
    x = x + 1
    try:
        raise ExceptionGroup("eg", [ValueError(1)])
    except ExceptionGroup as eg:
        n = len(eg.exceptions)
    return x + n


def c_cw_group_caught_by_base_group(x):
    x = x.exp()
    try:
        raise BaseExceptionGroup("beg", [KeyboardInterrupt()])
    except BaseExceptionGroup as beg:
        n = type(beg) is BaseExceptionGroup
    return x + n


def c_cw_group_exceptions_tuple_immutable(x):
    x = x + 2
    eg = ExceptionGroup("eg", [ValueError(1)])
    try:
        eg.exceptions[0] = TypeError()
    except TypeError:
        x = x + 1
    return x


CONSTRUCTS = [
    c_cw_group_basic_fields, c_cw_group_str, c_cw_group_is_exception_subclass,
    c_cw_base_group_becomes_exception_group, c_cw_base_group_keeps_base_exceptions,
    c_cw_group_with_base_exception_type_error, c_cw_group_bad_message_type_error, c_cw_group_empty_list_value_error,
    c_cw_group_non_exception_member_value_error, c_cw_group_subclass_construct, c_cw_group_split_by_type,
    c_cw_group_split_by_predicate, c_cw_group_split_all_or_none, c_cw_group_subgroup, c_cw_group_nested_leaves,
    c_cw_group_split_keeps_metadata, c_cw_group_derive_default, c_cw_group_derive_override, c_cw_group_add_note,
    c_cw_group_add_note_type_error, c_cw_group_caught_by_plain_except, c_cw_group_caught_by_base_group,
    c_cw_group_exceptions_tuple_immutable,
]
