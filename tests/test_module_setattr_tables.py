"""An assignment on a module that ``Module.__setattr__`` files in ``_parameters``, ``_buffers`` or ``_modules``
(a new parameter or submodule, a registered buffer replaced) reaches the real tables only after the graph, so a
later listing of that table in the same frame (``parameters()``, ``buffers()``, ``children()``, ``m._buffers``)
is a graph break, run as Python after the assignment. Before, it listed what the assignment had replaced: a
wrong answer. Tables the assignment leaves alone are still listed in the graph."""

import torch

import loom


class _WithBuffer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("running", torch.zeros(2))
        self.lin = torch.nn.Linear(2, 2)
        with torch.no_grad():
            self.lin.weight.fill_(0.5)
            self.lin.bias.zero_()


def _run(fn):
    expected = fn(torch.ones(2), _WithBuffer())
    loom.reset()
    result = loom.compile(fn, backend="eager", options={"strict": True})(torch.ones(2), _WithBuffer())
    return expected, result, loom.stats()


def parameter_then_parameters(x, m):
    m.extra = torch.nn.Parameter(torch.ones(2))
    return (x + m.extra).detach(), len(list(m.parameters()))


def buffer_then_buffers(x, m):
    m.running = m.running + x
    return [b.clone() for b in m.buffers()], m._buffers["running"].clone()


def submodule_then_parameters(x, m):
    m.lin = torch.nn.Identity()
    return m.lin(x), sum(p.numel() for p in m.parameters())


def buffer_then_parameters(x, m):
    m.running = m.running + x
    return m.running, len(list(m.parameters()))


def test_tables_listed_after_an_assignment_filed_in_them_show_it():
    for fn in (parameter_then_parameters, buffer_then_buffers, submodule_then_parameters):
        expected, result, stats = _run(fn)
        torch.testing.assert_close(result, expected)
        assert stats["graph_breaks"] == 1, (fn.__name__, stats)


def test_a_table_the_assignment_leaves_alone_is_listed_in_the_graph():
    expected, result, stats = _run(buffer_then_parameters)
    torch.testing.assert_close(result, expected)
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats
