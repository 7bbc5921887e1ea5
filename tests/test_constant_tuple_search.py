"""``count``, ``index`` and ``in`` of a constant tuple searched for an object the trace holds
(``variables/constant_tuple_methods.py``, ``operator_semantics.contains``), and the message of a failed
``tuple.index`` / ``list.remove`` of such an object (``container_method_kit.real_error_args``).

Before, ``(1, 2).count(obj)`` was "tuple.count with non-constant arguments: not modelled", ``obj in (1, 2)``
"'in' on (1, 2): not modelled", and ``str(e)`` of ``(1, 2).index(obj)``'s ValueError unknown: graph breaks
where torch.compile captures one graph. CPython compares each member with the object (its ``__eq__``).
"""

import contextlib
import io

import torch

import loom


class _AlwaysEq:
    def __eq__(self, other):
        return True


class _NeverEq:
    def __eq__(self, other):
        return False


def _program(x):
    found = ((1, 2).count(_AlwaysEq()), (1, 2, 1).count(_NeverEq()), (3, 4).index(_AlwaysEq()),
             _NeverEq() in (1, 2), _AlwaysEq() in (1,), _NeverEq() not in (1,))
    messages = []
    for op in (lambda: (1, 2).index(_NeverEq()), lambda: [1].remove(_NeverEq())):
        try:
            op()
        except ValueError as e:
            messages.append(str(e))
    return x + sum(found), found, messages


def test_searches_of_a_constant_tuple_in_one_graph():
    x = torch.randn(3)
    want = _program(x)
    assert want[2] == ["tuple.index(x): x not in tuple", "list.remove(x): x not in list"]
    loom.reset()
    with contextlib.redirect_stdout(io.StringIO()):
        report = loom.explain(_program)(x)
    assert (report.graph_count, report.graph_break_count) == (1, 0), report.breaks
    loom.reset()
    got = loom.compile(_program, backend="eager")(x)
    torch.testing.assert_close(got[0], want[0])
    assert got[1:] == want[1:]


def test_list_index_message_showing_the_object_stays_unknown():
    def program(x):
        try:
            [1].index(_NeverEq())
        except ValueError as e:
            return x + 1, str(e).endswith("is not in list")
        return x, None

    x = torch.randn(2)
    loom.reset()
    assert loom.compile(program, backend="eager")(x)[1] is True
