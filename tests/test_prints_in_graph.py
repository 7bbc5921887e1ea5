"""``print`` of tensors and constants is a node of the graph (``variables/graph_prints.py``), not a graph break.

Each case runs eagerly and compiled on copies of its inputs, under each backend: the printed text (and its
order among the prints), the results and the arguments afterwards must be eager's, and the counts loom
reports must be one graph and no break. The cases a print node cannot serve keep the break, and say why.
"""

from __future__ import annotations

import contextlib
import io
import sys

import pytest
import torch
from breaks_harness import compare

import loom

BACKENDS = ["eager", "aot_eager", "c"]


def print_between_ops(x):
    y = x + 1
    print("y is", y, {"a": (1, 2.5)}, None)
    return y * 2


def separator_and_end(x):
    y = x.sin()
    print("sin", y, sep=" | ", end="!\n")
    print("{braces}", y.shape, end=None, sep=None)
    return y


def tensor_changed_in_place_after_it_is_printed(x):
    y = x + 1
    print(y)
    y.add_(10)
    print(y)
    x.mul_(2)  # an argument written in place: printed before and after
    print("x", x)
    return y


def printed_on_every_pass_of_a_loop(x):
    for i in range(4):
        x = x * 2
        print("step", i, x)
    return x


def printed_inside_a_helper(x):
    def report(name, value):
        print(name, value)
        return value

    return report("a", x + 1) * report("b", x - 1)


def printed_under_no_grad_and_inference_mode(x):
    with torch.no_grad():
        y = x * 2
        print(y)
    with torch.inference_mode():
        z = x * 3
        print(z)
    return y + 1


def nothing_but_constants(x):
    print("start")
    y = x.cos()
    print(" ")
    print(1, 2.5, True, b"raw", (3, [4]), sep=",")
    return y


PRINTED_IN_THE_GRAPH = [print_between_ops, separator_and_end, tensor_changed_in_place_after_it_is_printed,
                        printed_on_every_pass_of_a_loop, printed_inside_a_helper,
                        printed_under_no_grad_and_inference_mode, nothing_but_constants]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", PRINTED_IN_THE_GRAPH, ids=lambda fn: fn.__name__)
def test_a_print_is_a_node_of_the_one_graph_and_prints_eagers_text(fn, backend):
    stats = compare(fn, torch.arange(3.0), backend=backend)
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats


def test_the_graph_holds_a_print_node_where_the_program_prints():
    report = loom.explain(print_between_ops)(torch.arange(3.0))
    ops = report.graphs[0].ops
    assert any("print" in op for op in ops), ops
    position = next(i for i, op in enumerate(ops) if "print" in op)
    assert "add" in ops[position - 1] and "mul" in ops[position + 1], ops


def _raises_after_printing(x):
    print("before the failing op", x)
    return torch.ones(2)[x.long()]  # an index past the end: eager prints, then raises


def _printed_and_raised(fn, *args):
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer), pytest.raises(IndexError) as raised:
        fn(*args)
    return buffer.getvalue(), str(raised.value)


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_a_line_printed_before_an_op_that_raises_is_still_printed(backend):
    expected = _printed_and_raised(_raises_after_printing, torch.tensor([5.0]))
    assert expected[0].startswith("before the failing op")
    loom.reset()
    assert _printed_and_raised(loom.compile(_raises_after_printing, backend=backend), torch.tensor([5.0])) == expected


def test_a_redirect_stdout_entered_before_the_compiled_code_receives_the_text():
    compiled = loom.compile(print_between_ops)
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        compiled(torch.arange(3.0))
    assert buffer.getvalue().startswith("y is tensor([1., 2., 3.])")


# -- prints a graph node cannot make keep the break ------------------------------------------------------
def _redirected_inside(x):
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):  # sys.stdout is set by the rewritten code, after the graph
        y = x.sin()
        print("hello", y)
    return y, buffer.getvalue()


def _requires_grad(x):
    y = x * 2
    print(y)  # its text shows grad_fn, which a compiling backend's tensors do not have
    return y


def _to_a_stream(x):
    y = x + 1
    print("to stderr", y, file=sys.stderr)
    return y


def _without_a_newline(x):
    y = x + 1
    print("no newline", y, end="")
    return y


class _Named:
    def __str__(self):
        return "named"


def _object_of_the_program(x):
    y = x + 1
    print(_Named(), y)  # its text is the program's code: not made into the format now
    return y


@pytest.mark.parametrize("fn, args", [(_redirected_inside, (torch.arange(3.0),)),
                                      (_requires_grad, (torch.ones(2, requires_grad=True),)),
                                      (_to_a_stream, (torch.arange(3.0),)),
                                      (_without_a_newline, (torch.arange(3.0),)),
                                      (_object_of_the_program, (torch.arange(3.0),))],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_a_print_a_node_cannot_make_stays_a_break_naming_the_print(fn, args):
    stats = compare(fn, *args)
    report = loom.explain(fn)(*args)
    printing = [info for info in report.breaks if info.what.startswith("print")]
    assert len(printing) == 1 and printing[0].source_line.lstrip().startswith("print("), report.breaks
    assert stats["graph_breaks"] == len(report.breaks), stats


def test_fullgraph_accepts_a_print_of_tensors():
    compiled = loom.compile(print_between_ops, fullgraph=True)
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        result = compiled(torch.arange(3.0))
    assert torch.equal(result, (torch.arange(3.0) + 1) * 2)
    assert buffer.getvalue().count("\n") == 1


def _printed_run(fn, *args):
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        result = fn(*args)
    return buffer.getvalue(), result


def _trained(x, w):
    y = x * w
    print("input", x, x.shape)
    loss = (y * 2).sum()
    print("done")
    return loss


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_print_in_a_graph_that_is_differentiated_prints_once_and_the_gradients_are_eagers(backend):
    outcomes = []
    loom.reset()
    for fn in (_trained, loom.compile(_trained, backend=backend, options={"strict": True})):
        w = torch.ones(3, requires_grad=True)
        printed, loss = _printed_run(fn, torch.arange(3.0), w)
        loss.backward()
        outcomes.append((printed, loss.item(), w.grad.tolist()))
    assert outcomes[0] == outcomes[1]
    assert (loom.stats()["graphs"], loom.stats()["graph_breaks"]) == (1, 0)


def _prints_its_sizes(x):
    y = x + 1
    n = x.shape[0]
    print("shape", y.shape, n, n * 2, (n + 1) / 2)
    return y.sin()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [print_between_ops, _prints_its_sizes], ids=lambda fn: fn.__name__.strip("_"))
def test_under_symbolic_sizes_one_print_node_serves_every_size_with_eagers_text(fn, backend):
    # _prints_its_sizes prints symbolic sizes and numbers too, formatted by the node at run time
    loom.reset()
    compiled = loom.compile(fn, backend=backend, dynamic=True, options={"strict": True})
    for n in (3, 5, 8):
        printed, result = _printed_run(compiled, torch.arange(float(n)))
        expected_printed, expected = _printed_run(fn, torch.arange(float(n)))
        assert printed == expected_printed and torch.allclose(result, expected)
    assert (loom.stats()["graphs"], loom.stats()["graph_breaks"], loom.stats()["recompiles"]) == (1, 0, 0)
