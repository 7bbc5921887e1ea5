"""``exp`` of a select with an infinite branch (a masked softmax's ``-inf``): the C generator computes it as a
select of two ``exp``s, so that no infinity reaches libmvec's vector ``expf`` (c/selects.py). Values against
eager, including rows that are all masked (NaN, as eager), and the shape of the generated code."""

from __future__ import annotations

import re

import torch

import loom_backends

aten = torch.ops.aten


def _compile(f, inputs):
    """``f`` through the `c` backend (AOTAutograd's decompositions: masked_fill becomes a where)."""
    return loom_backends.get("c")(torch.fx.symbolic_trace(f), inputs)


def _kernel_source(compiled) -> str:
    return "\n".join(k.source for g in compiled.graphs for k in g.compiled.kernels)


def _masked_softmax(x, mask):
    scores = aten.masked_fill.Scalar(aten.mul.Tensor(x, 0.125), aten.logical_not.default(mask), float("-inf"))
    return (aten._softmax.default(scores, -1, False),)


def _masked_log_softmax(x, mask):
    scores = aten.masked_fill.Scalar(x, aten.logical_not.default(mask), float("-inf"))
    return (aten._log_softmax.default(scores, -1, False),)


def test_a_masked_softmax_never_feeds_minus_infinity_to_the_vector_exp(threads):
    torch.manual_seed(0)
    x = torch.randn(3, 5, 64, 64) * 4
    mask = torch.ones(64, 64, dtype=torch.bool).tril()
    compiled = _compile(_masked_softmax, [x, mask])
    for got, want in zip(compiled(x, mask), _masked_softmax(x, mask)):
        torch.testing.assert_close(got, want)
    source = _kernel_source(compiled)
    lines = [line.strip() for line in source.splitlines()]
    # the masked lanes' value, exp(-inf - max), is computed once per row, between the vector loops
    constant = next(i for i, line in enumerate(lines) if re.fullmatch(r"float tmp\d+ = \(-INFINITY\) - tmp\d+;", line))
    name = lines[constant].split()[1]
    assert re.fullmatch(rf"float tmp\d+ = expf\({name}\);", lines[constant + 1]), source
    # no select holding -inf (nor arithmetic on one) is an argument of expf any more
    infinite = {m.group(1) for m in re.finditer(r"float (tmp\d+) = \w+ \? (\(-INFINITY\) : \w+|\w+ : \(-INFINITY\));", source)}
    infinite |= {m.group(1) for m in re.finditer(r"float (tmp\d+) = (tmp\d+) [-*+/] \w+;", source) if m.group(2) in infinite}
    assert infinite, source
    assert not any(re.search(rf"expf\({n}\)", source) for n in infinite), source


def test_rows_all_masked_are_nan_as_in_eager():
    x = torch.randn(2, 8, 16)
    mask = torch.rand(8, 16) > 0.5
    mask[3] = False  # a row of -inf only: eager's softmax is NaN there (-inf - -inf)
    mask[5] = True
    for f in (_masked_softmax, _masked_log_softmax):
        compiled = _compile(f, [x, mask])
        (got,), (want,) = compiled(x, mask), f(x, mask)
        torch.testing.assert_close(got, want, equal_nan=True)
        assert got[:, 3].isnan().all() and not got[:, 5].isnan().any()


def test_exp_of_other_non_finite_selects_matches_eager(compiles_without_warnings):
    # +inf and NaN branches, through neg, add and mul, exp2 and expm1: the distributed form agrees with eager
    def f(x, c):
        up = aten.masked_fill.Scalar(x, c, float("inf"))
        nan = aten.masked_fill.Scalar(x, aten.logical_not.default(c), float("nan"))
        return (
            aten.exp.default(aten.neg.default(up)),
            aten.exp2.default(aten.add.Tensor(up, 1.0)),
            aten.expm1.default(aten.mul.Tensor(nan, 0.5)),
        )

    x, c = torch.randn(4, 300) * 50, torch.rand(4, 300) > 0.3
    compiled = _compile(f, [x, c])
    for got, want in zip(compiled(x, c), f(x, c)):
        torch.testing.assert_close(got, want, equal_nan=True)
    for graph in compiled.graphs:  # the selects and differences the exps no longer read are gone
        compiles_without_warnings(graph.compiled.c_source)


def test_a_bool_buffer_is_read_as_bytes_so_its_loops_vectorise():
    # gcc 12 leaves a loop scalar when it loads a _Bool beside floats (the masked softmax took 3 ns per
    # element); buffers of bool are declared uint8_t and each load converts 0/1 back to bool.
    x = torch.randn(2, 4, 16, 16)
    mask = torch.rand(16, 16) > 0.3
    compiled = _compile(_masked_softmax, [x, mask])
    torch.testing.assert_close(compiled(x, mask)[0], _masked_softmax(x, mask)[0])
    source = _kernel_source(compiled)
    assert re.search(r"const uint8_t \*restrict \w+", source), source
    assert not re.search(r"\bbool \*", source), source
