"""Attributes a program keeps in a tensor's instance ``__dict__`` (tags, after PyTorch's
test/dynamo/test_input_attr_tracking.py): one the caller put on an input is read and guarded as a user object's
attribute (a tensor tag becomes a graph input, a number a guarded constant), and ``del tensor.tag`` is modelled
(later reads raise Python's AttributeError, the real tensor loses the tag after the graph). Before, reading such a
tag and deleting any tag were graph breaks."""

from __future__ import annotations

import torch

import loom


def _tagged():
    t = torch.full((3,), 2.0)
    t.y = torch.full((3,), 5.0)
    t.scale = 4
    return t


def read_tags(x, t):
    return x * t.y + t.scale


def test_tags_of_an_input_are_read_in_the_graph():
    x = torch.arange(3.0)
    expected = read_tags(x, _tagged())
    loom.reset()
    report = loom.explain(read_tags)(x, _tagged())
    assert (report.graph_count, report.graph_break_count) == (1, 0), [(b.what, b.why) for b in report.breaks]
    loom.reset()
    compiled = loom.compile(read_tags, backend="eager", options={"strict": True})
    t = _tagged()
    torch.testing.assert_close(compiled(x, t), expected)
    torch.testing.assert_close(compiled(x, _tagged()), expected)
    assert loom.stats()["recompiles"] == 0  # another tensor with the same tags: the same entry


def test_tags_changed_between_calls_are_guarded():
    x = torch.arange(3.0)
    compiled = loom.compile(read_tags, backend="eager", options={"strict": True})
    t = _tagged()
    torch.testing.assert_close(compiled(x, t), read_tags(x, t))
    t.scale = 7  # a number: guarded by value
    torch.testing.assert_close(compiled(x, t), read_tags(x, t))
    t.y = 3  # a tensor replaced by a number
    torch.testing.assert_close(compiled(x, t), read_tags(x, t))
    del t.y
    try:
        compiled(x, t)
    except AttributeError as e:
        assert str(e) == "'Tensor' object has no attribute 'y'"
    else:
        raise AssertionError("a tag deleted before the call must raise")


def delete_own_tag(x):
    x.tag = 2
    out = x * x.tag
    del x.tag
    return out, hasattr(x, "tag")


def delete_callers_tag(x, t):
    out = x * t.y
    del t.y
    try:
        t.y
    except AttributeError as e:
        return out, str(e)
    return out, ""


def delete_made_tensor_tag(x):
    y = x + 1
    y.tag = 3
    del y.tag
    return y, getattr(y, "tag", None)


def test_tags_deleted_in_the_frame():
    for fn, args in ((delete_own_tag, lambda: (torch.arange(3.0),)),
                     (delete_callers_tag, lambda: (torch.arange(3.0), _tagged())),
                     (delete_made_tensor_tag, lambda: (torch.arange(3.0),))):
        eager_args = args()
        expected = fn(*eager_args)
        loom.reset()
        report = loom.explain(fn)(*args())
        assert (report.graph_count, report.graph_break_count) == (1, 0), (fn.__name__, report.breaks)
        loom.reset()
        loom_args = args()
        actual = loom.compile(fn, backend="eager", options={"strict": True})(*loom_args)
        torch.testing.assert_close(actual[0], expected[0])
        assert actual[1:] == expected[1:], fn.__name__
        assert [vars(a) for a in loom_args] == [vars(a) for a in eager_args], fn.__name__  # the tag is gone


def test_deleting_a_missing_tag_raises_pythons_error():
    def fn(x):
        del x.nope

    x = torch.arange(3.0)
    try:
        loom.compile(fn, backend="eager")(x)
    except AttributeError as e:
        assert str(e) == "'Tensor' object has no attribute 'nope'"
    else:
        raise AssertionError("eager raises AttributeError")


def test_deleting_a_tensor_property_breaks():
    def fn(x):
        y = x + 1
        try:
            del y.grad
        except Exception:
            pass
        return y * 2

    x = torch.arange(3.0)
    loom.reset()
    report = loom.explain(fn)(x)
    assert any("deleting attribute 'grad'" in b.what for b in report.breaks)
    loom.reset()
    torch.testing.assert_close(loom.compile(fn, backend="eager")(x), fn(x))


class Tagged(torch.Tensor):
    tag = 0  # a plain class value: an instance's own tag hides it


def _sub(tag=True):
    s = torch.ones(3).as_subclass(Tagged)
    if tag:
        s.tag = 3
    return s


def reads_subclass_tag(x, s):
    return x + s.tag


def stores_and_deletes_subclass_tag(x, s):
    before = x + s.tag
    s.tag = 7
    during = x + s.tag
    del s.tag
    return before, during, x + s.tag


def made_subclass_tag(x):
    s = x.as_subclass(Tagged)
    s.tag = 5
    return x + s.tag


def test_a_subclass_instances_tag_hides_the_class_value():
    x = torch.arange(3.0)
    loom.reset()
    compiled = loom.compile(reads_subclass_tag, backend="eager", options={"strict": True})
    for tag in (True, False, True):  # was x + 0 with the tag set: the class value won
        torch.testing.assert_close(compiled(x, _sub(tag)), reads_subclass_tag(x, _sub(tag)))
    assert loom.stats()["graph_breaks"] == 0
    for fn, args in ((stores_and_deletes_subclass_tag, lambda: (x, _sub(False))), (made_subclass_tag, lambda: (x,))):
        expected = fn(*args())
        loom.reset()
        actual = loom.compile(fn, backend="eager", options={"strict": True})(*args())
        assert loom.stats()["graph_breaks"] == 0, fn.__name__
        if isinstance(expected, tuple):
            for a, e in zip(actual, expected):
                assert torch.equal(a, e) if isinstance(e, torch.Tensor) else a == e, fn.__name__
        else:
            torch.testing.assert_close(actual, expected)


def test_deleting_a_subclass_tag_that_only_the_class_has_raises():
    def fn(x, s):
        try:
            del s.tag
        except AttributeError as e:
            return x, str(e)
        return x + 1, ""

    x = torch.arange(3.0)
    expected = fn(x, _sub(False))
    actual = loom.compile(fn, backend="eager", options={"strict": True})(x, _sub(False))
    assert actual[1] == expected[1] == "'Tagged' object has no attribute 'tag'"
