"""``d.__get__(obj)`` for a C class's field descriptor (``type.__dict__["__dict__"]``,
``BaseException.__dict__["args"]``) and its bound ``__get__`` (a ``method-wrapper``) kept in a global: the
trace reads the field as ``obj.<name>`` would. Both broke the graph (a C method of a Python object; a
method-wrapper's ``__call__``)."""

import torch

import loom


class _Holder:
    first = 1
    second = 2


class _Err(Exception):
    pass


_DICT = type.__dict__["__dict__"]
_GET_DICT = _DICT.__get__
_ARGS = BaseException.__dict__["args"]


def _explain(fn, *args):
    loom.reset()
    return loom.explain(fn)(*args)


def _public_count(mapping):
    return len([k for k in mapping if not k.startswith("_")])


def _via_bound_get(x):
    return x + _public_count(_GET_DICT(_Holder)), _GET_DICT(_Holder)["second"]


def _via_descriptor(x):
    return x * _DICT.__get__(_Holder, type)["first"], _DICT.__get__(None, type) is _DICT


def _member_descriptor(x):
    return x + _ARGS.__get__(_Err(4, 5))[1]


def _wrong_type(x):
    try:
        _GET_DICT(3)
    except TypeError as e:
        return x - 1, str(e)
    return x, ""


def test_bound_get_of_type_dict_reads_the_class_dict():
    x = torch.arange(3.0)
    report = _explain(_via_bound_get, x)
    expected = _via_bound_get(x)
    assert torch.equal(report.result[0], expected[0]) and report.result[1] == expected[1] == 2
    assert report.graph_count == 1 and report.break_count == 0


def test_descriptor_get_with_owner_and_none():
    x = torch.arange(3.0)
    report = _explain(_via_descriptor, x)
    expected = _via_descriptor(x)
    assert torch.equal(report.result[0], expected[0]) and report.result[1] is True
    assert report.graph_count == 1 and report.break_count == 0


def test_member_descriptor_get_reads_exception_args():
    x = torch.arange(3.0)
    report = _explain(_member_descriptor, x)
    assert torch.equal(report.result, _member_descriptor(x))
    assert report.graph_count == 1 and report.break_count == 0


def test_descriptor_get_on_the_wrong_type_raises_as_eager():
    x = torch.arange(3.0)
    report = _explain(_wrong_type, x)
    expected = _wrong_type(x)
    assert torch.equal(report.result[0], expected[0]) and report.result[1] == expected[1]
    assert report.break_count == 0


def test_class_dict_read_through_descriptor_follows_a_new_attribute():
    compiled = loom.compile(lambda x: x + len(_GET_DICT(_Holder)), backend="eager")
    loom.reset()
    x = torch.arange(3.0)
    before = compiled(x)
    _Holder.third = 3
    try:
        after = compiled(x)
    finally:
        del _Holder.third
    assert torch.equal(after, before + 1)


def _builtin_type_namespaces(x):
    getter = BaseException.__dict__["args"].__get__
    found = sorted(k for k in float.__dict__ if k.startswith("is"))
    return x + getter(KeyError(3, 4))[1], len(type.__dict__["__dict__"].__get__(_Holder)) > 2, found, "real" in int.__dict__


def test_builtin_type_dict_is_read_in_graph():
    """``BaseException.__dict__``: a C type's namespace (a mappingproxy with fixed keys) broke the graph."""
    x = torch.arange(3.0)
    report = _explain(_builtin_type_namespaces, x)
    expected = _builtin_type_namespaces(x)
    assert torch.equal(report.result[0], expected[0]) and report.result[1:] == expected[1:]
    assert report.graph_count == 1 and report.break_count == 0
