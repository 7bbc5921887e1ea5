"""``inspect.Signature.bind`` with tensors among the arguments, and ``__slots__`` on objects made in the trace.

``Signature.bind(x, ...)`` was a graph break ("Signature.bind with values known only at run time: not
modelled"): CPython's pure-Python ``Signature._bind`` is now inlined over the folded signature. That needs
objects made while tracing whose class has ``__slots__`` (``BoundArguments``, ``Parameter``) to keep slot
semantics: slots are stored with the instance and rebuilt through their descriptors, an unset slot is an
AttributeError, and a class without ``__dict__`` refuses other attributes, as in Python."""

import dataclasses
import inspect

import torch
from harness import check, run_rewritten

from loom_symbolic import translate_function


def _target(a, b=1, *rest, c, d=4, **kw):
    return a


def _one(p):
    return p


def bind_with_tensors(x):
    sig = inspect.signature(_target)
    bound = sig.bind(x, x * 2, 5, c=x + 1, extra=3)
    args, kwargs = bound.args, bound.kwargs
    return (list(bound.arguments), bound.arguments["a"] * bound.arguments["b"], args[0] + args[1], len(args),
            sorted(kwargs), bound.arguments["rest"], type(bound).__name__)


def test_bind_with_tensors():
    check(bind_with_tensors, torch.ones(3))


def apply_defaults(x):
    bound = inspect.signature(_target).bind(x, c=x)
    before = list(bound.arguments)
    bound.apply_defaults()
    return before, list(bound.arguments), bound.arguments["b"], bound.arguments["d"], bound.args[0] + 1


def test_apply_defaults():
    check(apply_defaults, torch.ones(3))


def wrong_calls(x):
    sig = inspect.signature(_target)
    messages = []
    for call in (lambda: sig.bind(x), lambda: sig.bind(x, a=x, c=1), lambda: sig.bind(c=x),
                 lambda: inspect.signature(_one).bind(x, x), lambda: inspect.signature(_one).bind(q=x)):
        try:
            call()
        except TypeError as exc:
            messages.append(str(exc))
    return x + len(messages), messages


def test_wrong_calls_raise_eagers_type_error():
    check(wrong_calls, torch.ones(3))


def bind_partial_and_forward(x, *args, **kwargs):
    bound = inspect.signature(_target).bind_partial(*args, **kwargs)
    bound.arguments.setdefault("a", x)
    return _target(*bound.args, **bound.kwargs) + x, list(bound.arguments)


def test_bind_partial_of_the_frames_arguments():
    check(bind_partial_and_forward, torch.ones(3), torch.zeros(3), 2, c=torch.ones(3))


def bound_leaves_the_frame(x):
    return x + 1, inspect.signature(_target).bind(1, 2, c=3)


def test_bound_arguments_that_leave_the_frame_are_eagers():
    t = check(bound_leaves_the_frame, torch.ones(3))
    _, bound = run_rewritten(bound_leaves_the_frame, t, (torch.ones(3),), {})
    assert type(bound) is inspect.BoundArguments
    assert bound == inspect.signature(_target).bind(1, 2, c=3)


def bound_with_a_tensor_leaves_the_frame(x):
    return inspect.signature(_target).bind(x * 2, c=3)


def test_bound_arguments_holding_a_graph_output_are_rebuilt():
    translation = translate_function(bound_with_a_tensor_leaves_the_frame, torch.ones(3))
    assert not translation.breaks, translation.dump()
    bound = run_rewritten(bound_with_a_tensor_leaves_the_frame, translation, (torch.ones(3),), {})
    assert type(bound) is inspect.BoundArguments and list(bound.arguments) == ["a", "c"]
    torch.testing.assert_close(bound.args[0], torch.full((3,), 2.0))
    assert bound.signature == inspect.signature(_target)


# -- __slots__ on objects made while tracing ---------------------------------------------------------------
class _Slotted:
    __slots__ = ("scale", "value")

    def __init__(self, value):
        self.value = value


class _SlottedChild(_Slotted):
    __slots__ = ("extra",)


class _WithDict(_Slotted):
    pass


def slot_semantics(x):
    obj = _SlottedChild(x)
    obj.extra = 2
    errors = []
    try:
        obj.scale
    except AttributeError as exc:
        errors.append(str(exc))
    try:
        obj.other = 1
    except AttributeError as exc:
        errors.append(str(exc))
    try:
        del obj.scale
    except AttributeError as exc:
        errors.append(str(exc))
    obj.scale = 3
    del obj.extra
    has = (hasattr(obj, "extra"), hasattr(obj, "scale"), hasattr(obj, "__dict__"))
    loose = _WithDict(x)
    loose.anything = 5
    return obj.value * obj.scale + loose.anything, errors, has, vars(loose)


def test_slot_semantics_as_in_python():
    check(slot_semantics, torch.ones(3))


def slotted_leaves_the_frame(x):
    obj = _SlottedChild(x * 2)
    obj.extra = "e"
    loose = _WithDict(1)
    loose.tag = "t"
    return obj, loose


def test_a_slotted_object_that_leaves_the_frame_keeps_its_slots():
    translation = translate_function(slotted_leaves_the_frame, torch.ones(3))
    assert not translation.breaks, translation.dump()
    obj, loose = run_rewritten(slotted_leaves_the_frame, translation, (torch.ones(3),), {})
    assert type(obj) is _SlottedChild and obj.extra == "e" and not hasattr(obj, "scale")
    torch.testing.assert_close(obj.value, torch.full((3,), 2.0))
    assert type(loose) is _WithDict and loose.value == 1 and vars(loose) == {"tag": "t"}


def test_a_slotted_dataclass():
    @dataclasses.dataclass(slots=True)
    class Point:
        x: torch.Tensor
        y: int = 2

    def fn(x):
        p = Point(x)
        p.y += 1
        try:
            p.z = 1
        except AttributeError as exc:
            message = str(exc)
        return p.x * p.y, message, dataclasses.astuple(Point(1, 2))

    check(fn, torch.ones(3))


@dataclasses.dataclass(frozen=True, slots=True)
class _FrozenPoint:
    x: object
    y: int = 2


def frozen_slotted(x):
    p = _FrozenPoint(x * 2)
    try:
        p.y = 5
    except dataclasses.FrozenInstanceError as exc:
        message = str(exc)
    return p, p.x + p.y, message


def test_a_frozen_slotted_dataclass_is_rebuilt_past_its_setattr():
    translation = translate_function(frozen_slotted, torch.ones(3))
    assert not translation.breaks, translation.dump()
    p, total, message = run_rewritten(frozen_slotted, translation, (torch.ones(3),), {})
    assert type(p) is _FrozenPoint and p.y == 2 and message == "cannot assign to field 'y'"
    torch.testing.assert_close(total, torch.full((3,), 4.0))


def stores_on_a_slotted_argument(x, obj):
    missing = ""
    try:
        obj.other = 1  # no such slot and no __dict__: AttributeError here, as in Python
    except AttributeError as exc:
        missing = str(exc)
    obj.value = x * 2
    return obj.value + 1, missing


def test_a_store_outside_the_slots_of_an_argument_raises_where_python_does():
    # it was recorded and replayed after the graph, where it raised out of the compiled function
    def args():
        return torch.ones(3), _Slotted(0)

    eager_args, loom_args = args(), args()
    expected = stores_on_a_slotted_argument(*eager_args)
    translation = translate_function(stores_on_a_slotted_argument, *args())
    assert not translation.breaks, translation.dump()
    actual = run_rewritten(stores_on_a_slotted_argument, translation, loom_args, {})
    assert repr(actual) == repr(expected) and "other" in actual[1]
    torch.testing.assert_close(loom_args[1].value, eager_args[1].value)
