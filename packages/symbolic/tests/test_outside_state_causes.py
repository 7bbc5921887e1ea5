"""Issue 29's last break causes, at the translator: ``str()`` of an object whose text is its address
(folded, as torch.compile does), and ``next()`` on an iterator argument the facade found moving between
calls (``DynamicSpec.moving_iterators``: one break naming it, no guard on its position)."""

import torch
from harness import run_rewritten

import loom_guards
from loom_symbolic import translate_function
from loom_symbolic.shapes import DynamicSpec

X = torch.ones(3)


class Plain:
    pass


PLAIN = Plain()


def text_of_objects(x, obj):
    return x + len(str(Plain())), str(obj), repr(PLAIN), f"{obj!r}"


def test_str_of_an_address_object_is_a_constant_guarded_by_identity():
    obj = Plain()
    translation = translate_function(text_of_objects, X, obj)
    assert not translation.breaks and len(translation.graphs) == 1, translation.dump()
    _, text, global_text, formatted = run_rewritten(text_of_objects, translation, (X, obj), {})
    assert text == formatted == object.__repr__(obj) and global_text == object.__repr__(PLAIN)
    on_obj = loom_guards.compile([g for g in translation.guards if "L['obj']" in str(g)])
    assert on_obj({"x": X, "obj": obj}) and not on_obj({"x": X, "obj": Plain()})  # another address


def takes_the_next_item(x, numbers):
    return x + next(numbers)


def test_an_iterator_argument_is_modelled_at_its_position():
    translation = translate_function(takes_the_next_item, X, iter([4, 5]))
    assert not translation.breaks and "__reduce__()[2] == 0" in "\n".join(map(str, translation.guards))
    numbers = iter([4, 5])
    torch.testing.assert_close(run_rewritten(takes_the_next_item, translation, (X, numbers), {}), X + 4)
    assert list(numbers) == [5]  # moved as eager moves it


def test_a_moving_iterator_argument_is_one_named_break_without_a_position_guard():
    spec = DynamicSpec(moving_iterators=frozenset({"L['numbers']"}))
    translation = translate_function(takes_the_next_item, X, iter([4, 5]), dynamic=spec)
    assert len(translation.breaks) == 1, translation.dump()
    reason = str(translation.breaks[0])
    assert "next() on" in reason and "another position on each call" in reason, reason
    assert "__reduce__" not in "\n".join(str(g) for g in translation.guards), translation.dump()
