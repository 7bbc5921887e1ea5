"""An assignment on a module that ``Module.__setattr__`` files in ``_parameters``, ``_buffers`` or ``_modules``
(a new parameter or submodule, a registered buffer replaced) is filed in the trace's view of that table, so a
later listing of it in the same frame (``parameters()``, ``buffers()``, ``m._buffers``) shows it in the graph.
Once it listed what the assignment had replaced (a wrong answer), then it broke there. A submodule made in the
frame has no tables the listing could walk: still a break. Tables the assignment leaves alone are listed in the
graph."""

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
    for fn in (parameter_then_parameters, buffer_then_buffers):
        expected, result, stats = _run(fn)
        torch.testing.assert_close(result, expected)
        assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), (fn.__name__, stats)


def test_a_submodule_made_in_the_frame_then_walked_breaks():
    expected, result, stats = _run(submodule_then_parameters)
    torch.testing.assert_close(result, expected)
    assert stats["graph_breaks"] == 1, stats


def test_a_table_the_assignment_leaves_alone_is_listed_in_the_graph():
    expected, result, stats = _run(buffer_then_parameters)
    torch.testing.assert_close(result, expected)
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats
