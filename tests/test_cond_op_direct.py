"""The ``cond`` higher-order op object itself (``torch._higher_order_ops.cond.cond_op``), called positionally or
with every argument by keyword, is ``torch.cond``: one graph holding the op, eager's values for either
predicate; calls eager refuses (unknown keywords, a keyword given twice) still raise eager's error."""

from __future__ import annotations

import pytest
import torch
from torch._higher_order_ops.cond import cond_op

import loom


def keywords(pred, x):
    return cond_op(pred=pred, true_fn=lambda t: t.clone(), false_fn=lambda t: -t, operands=[x])


def positional(pred, x):
    return cond_op(pred, lambda t: t * 2, lambda t: t - 2, (x,))


@pytest.mark.parametrize("fn", [keywords, positional])
@pytest.mark.parametrize("flag", [True, False])
def test_cond_op_called_directly_is_one_graph(fn, flag):
    args = (torch.tensor(flag), torch.arange(3.0))
    loom.reset()
    report = loom.explain(fn, backend="eager")(*args)
    assert (report.graph_count, report.graph_break_count) == (1, 0), report.breaks
    assert any(n.target is cond_op for g in report.graphs for n in g.graph_module.graph.nodes)
    loom.reset()
    torch.testing.assert_close(loom.compile(fn, backend="eager")(*args), fn(*args))


def test_cond_op_with_an_unknown_keyword_raises_eagers_error():
    def bad(pred, x):
        return cond_op(pred=pred, true_fn=lambda t: t, false_fn=lambda t: -t, operands=[x], invalid=True)
    loom.reset()
    with pytest.raises(TypeError):
        loom.compile(bad, backend="eager")(torch.tensor(True), torch.ones(3))
