"""An ``nn.Module`` whose instance holds an attribute named like one of ``nn.Module``'s iterator methods
(``self.buffers = []``, ``self.named_buffers = [...]``, ``self.parameters = lambda: ...``): Python's lookup finds the
instance attribute first, since a function on the class is not a data descriptor. loom answered the method anyway,
so a subscript of it broke the graph and a call of it ran ``nn.Module.parameters`` (the wrong function: eager's
result differed)."""

import torch

import loom


class _Shadowed(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("a", torch.ones(3))
        self.buffers = []
        self.named_buffers = ["a"]
        self.parameters = lambda: [torch.full((3,), 5.0)]

    def forward(self, x):
        return self.a * x + len(self.buffers) + self.parameters()[0], self.named_buffers[0]


class _Plain(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("a", torch.ones(3))

    def forward(self, x):
        return self.a * x + len(list(self.buffers())), [name for name, _ in self.named_buffers()]


def _explain(fn, *args):
    loom.reset()
    report = loom.explain(fn)(*args)
    return report.graph_count, len(report.breaks)


def test_instance_attribute_hides_the_method():
    m = _Shadowed()
    x = torch.arange(3.0)
    expected = m(x)
    loom.reset()
    got = loom.compile(m)(x)
    assert torch.equal(got[0], expected[0]) and got[1] == expected[1] == "a"
    assert _explain(m, x) == (1, 0)


def test_methods_still_answered_where_nothing_hides_them():
    m = _Plain()
    x = torch.arange(3.0)
    expected = m(x)
    loom.reset()
    got = loom.compile(m)(x)
    assert torch.equal(got[0], expected[0]) and got[1] == expected[1] == ["a"]
    assert _explain(m, x) == (1, 0)


def test_an_attribute_set_after_compiling_is_seen():
    """Modules share compiled entries by type: the method's answer is guarded on the instance not holding
    the name, so an attribute set later recompiles (it ran ``Module.buffers`` all the same)."""
    m = _Plain()
    x = torch.arange(3.0)
    loom.reset()
    compiled = loom.compile(m)
    assert torch.equal(compiled(x)[0], m(x)[0])
    m.buffers = lambda: [1, 2, 3, 4, 5]
    try:
        assert torch.equal(compiled(x)[0], m(x)[0])
    finally:
        del m.buffers
    assert torch.equal(compiled(x)[0], m(x)[0])
