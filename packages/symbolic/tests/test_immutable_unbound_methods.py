"""``str.split(s, ",")``, ``str.join("-", parts)``, ``int.bit_length(n)``, ``tuple.index(t, v)``: methods of immutable
builtin classes read unbound from the class (Paddle's SOT test_specialization, issue 29). The read was a graph
break ("attribute 'split' of builtin str"); now a call with constants folds (a wrong receiver raises CPython's
TypeError) and one with a receiver of exactly the class is the receiver's own method."""

import torch
from harness import check

from loom_symbolic import translate_function


def unbound_str_int_tuple_methods(x):
    parts = str.split("1,2,3", ",")
    joined = str.join("-", parts)
    n = int.bit_length(x.shape[0]) + tuple.index((1, 2, 3), 2) + float.is_integer(2.0)
    names = sorted(["b", "A", "c"], key=str.lower)
    return x + n + len(parts), joined, names, str.upper("hi"), bytes.decode(b"ok"), str.__add__("a", "b")


def unbound_method_on_a_traced_string(x):
    label = "x".join(str(d) for d in x.shape)
    return x + 1, str.split(label + "x7", "x"), str.format("{}-{}", label, x.shape[0])


def wrong_receiver_raises_eagers_type_error(x):
    try:
        str.split(5)
    except TypeError as e:
        return x + 1, str(e)
    return x


def test_unbound_methods_of_immutable_classes_are_folded():
    check(unbound_str_int_tuple_methods, torch.ones(3))


def test_unbound_method_on_a_string_made_in_the_trace():
    check(unbound_method_on_a_traced_string, torch.ones(3))


def test_a_wrong_receiver_raises_as_eager():
    check(wrong_receiver_raises_eagers_type_error, torch.ones(3))


class _Shouting(str):
    def upper(self):
        return "overridden"


def _subclass_receiver(x, s):
    return x + 1, str.upper(s)


def test_a_subclass_receiver_is_cpythons_method_not_the_override():
    # the unbound descriptor skips _Shouting.upper (eager says "QUIET"): a subclass receiver is a break, never
    # the override's answer
    translation = translate_function(_subclass_receiver, torch.ones(3), _Shouting("quiet"))
    assert [b.reason.what for b in translation.breaks] == ["str.upper called on _Shouting object"], translation.dump()
