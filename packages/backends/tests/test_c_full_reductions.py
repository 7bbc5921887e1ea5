"""Full reductions (every element to one value) in the C generator: split across threads above the parallel
threshold, each thread a contiguous chunk, partials combined in thread order."""

from __future__ import annotations

import pytest
import torch

from loom_backends.c import compile_graph
from loom_backends.kernels.config import config

aten = torch.ops.aten
THRESHOLD = 4096
SMALL, LARGE = 1000, 3 * THRESHOLD + 77  # below and above; LARGE is not a multiple of the 64-element grain


@pytest.fixture
def threshold():
    before = config.c_parallel_min_elements
    config.c_parallel_min_elements = THRESHOLD
    yield THRESHOLD
    config.c_parallel_min_elements = before


@pytest.fixture(params=[1, 2], ids=["1thread", "2threads"])
def nthreads(request):
    before = torch.get_num_threads()
    torch.set_num_threads(request.param)
    yield request.param
    torch.set_num_threads(before)


def reductions(x, y):
    return (
        aten.sum.default(aten.mul.Tensor(x, y)),
        aten.amax.default(x, [0]),
        aten.amin.default(x, [0]),
        aten.argmax.default(x),
        aten.argmin.default(x),
    )


def float_reductions(x, y):
    return (*reductions(x, y), aten.mean.default(x))


def inputs(n: int, dtype: torch.dtype) -> list[torch.Tensor]:
    torch.manual_seed(0)
    if dtype.is_floating_point:
        x, y = torch.randn(n, dtype=dtype), torch.randn(n, dtype=dtype)
    else:
        x, y = torch.randint(-1000, 1000, (n,), dtype=dtype), torch.randint(-3, 4, (n,), dtype=dtype)
    x[n - 5] = x.max() + 1  # the extremes in the last thread's chunk, repeated in the first: the first wins
    x[3] = x[n - 5]
    x[n - 9] = x.min() - 1
    x[10] = x[n - 9]
    return [x, y]


def c_source(compiled) -> str:
    return "\n".join(k.source for k in compiled.kernels)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64])
@pytest.mark.parametrize("n", [SMALL, LARGE], ids=["small", "large"])
def test_full_reductions_match_eager(dtype, n, nthreads, threshold):
    args = inputs(n, dtype)
    f = float_reductions if dtype.is_floating_point else reductions
    compiled = compile_graph(torch.fx.symbolic_trace(f), args)
    for got, want in zip(compiled(*args), f(*args)):
        assert got.dtype == want.dtype
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("where", [5, LARGE - 3], ids=["first_chunk", "last_chunk"])
def test_a_nan_in_any_chunk_wins_max_and_argmax(where, nthreads, threshold):
    def f(x):
        return aten.amax.default(x, [0]), aten.argmax.default(x), aten.sum.default(x)

    x = torch.randn(LARGE)
    x[where] = float("nan")
    compiled = compile_graph(torch.fx.symbolic_trace(f), [x])
    for got, want in zip(compiled(x), f(x)):
        torch.testing.assert_close(got, want, equal_nan=True)


def test_only_a_large_full_reduction_has_the_split_form(threshold):
    def f(x):
        return (aten.sum.default(x),)

    def rows(x):
        return (aten.sum.dim_IntList(x, [1]),)

    large = compile_graph(torch.fx.symbolic_trace(f), [torch.randn(LARGE)])
    assert "loom_thread_range(rnumel" in c_source(large)
    assert "combined in thread order" in c_source(large)
    small = compile_graph(torch.fx.symbolic_trace(f), [torch.randn(SMALL)])
    assert "_chunk(" not in c_source(small) and "loom_thread_range(rnumel" not in c_source(small)
    # gcc left a serial full sum scalar once the caller's constant sizes were propagated into it
    assert "LOOM_NOIPA static void loom_red_sum_0_rows(" in c_source(small)
    assert "LOOM_NOIPA static void loom_red_sum_0_chunk(" in c_source(large)
    per_row = compile_graph(torch.fx.symbolic_trace(rows), [torch.randn(4, LARGE)])
    assert "_chunk(" not in c_source(per_row)  # several rows: the rows are shared among threads


def test_a_symbolic_length_full_reduction_has_the_split_form(dynamic, threshold, nthreads):
    import loom_backends

    def f(x):
        return (aten.sum.default(aten.mul.Tensor(x, x)),)

    gm, example = dynamic.graph(f, [torch.randn(LARGE)], {0: {0}})
    compiled = loom_backends.get("c")(gm, example)
    (graph,) = [g.compiled for g in compiled.graphs]
    assert graph.fallback_reason is None and "loom_thread_range(rnumel" in graph.c_source
    for n in (SMALL, LARGE, 5 * LARGE):
        x = torch.randn(n)
        torch.testing.assert_close(compiled(x)[0], f(x)[0], rtol=1e-5, atol=1e-4, msg=str(n))


def test_two_threads_give_the_same_sum_every_call(threshold):
    def f(x, y):
        return aten.sum.default(aten.mul.Tensor(x, y)), aten.mean.default(x)

    torch.manual_seed(0)
    x, y = torch.randn(200_000) * 1e3, torch.randn(200_000)
    compiled = compile_graph(torch.fx.symbolic_trace(f), [x, y])
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        first = compiled(x, y)
        for _ in range(20):
            again = compiled(x, y)
            assert all(torch.equal(a, b) for a, b in zip(first, again))
    finally:
        torch.set_num_threads(before)
    want = (x.double() * y.double()).sum()
    assert abs(float(first[0]) - float(want)) <= 1e-5 * float((x.double() * y.double()).abs().sum())


def test_the_split_form_compiles_without_warnings(compiles_without_warnings, threshold):
    def f(x, y, i, b):
        return (*float_reductions(x, y), *reductions(i, i), aten.any.default(b), aten.prod.default(y))

    x, y = inputs(LARGE, torch.float32)
    i = inputs(LARGE, torch.int64)[0]
    b = x > 3.0
    compiled = compile_graph(torch.fx.symbolic_trace(f), [x, y, i, b])
    for got, want in zip(compiled(x, y, i, b), f(x, y, i, b)):
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-4)
    assert compiled.c_source.count("_chunk(") >= 2
    compiles_without_warnings(compiled.c_source)


@pytest.fixture
def staged_threshold():
    before = config.c_parallel_min_staged_elements
    config.c_parallel_min_staged_elements = THRESHOLD
    yield THRESHOLD
    config.c_parallel_min_staged_elements = before


def staged(x):
    var, mean = aten.var_mean.correction(x, [0], correction=1)
    flat = aten._softmax.default(x, 0, False)  # max, then the sum of exp, then the outputs
    return var, mean, flat, aten.amax.default(aten.sub.Tensor(x, aten.mean.default(x)), [0])


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("n", [SMALL, LARGE], ids=["small", "large"])
def test_several_loop_full_reductions_match_eager(dtype, n, nthreads, staged_threshold):
    x = inputs(n, dtype)[0]
    compiled = compile_graph(torch.fx.symbolic_trace(staged), [x])
    assert ("#pragma omp barrier" in c_source(compiled)) == (n >= staged_threshold)
    for got, want in zip(compiled(x), staged(x)):
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)


def test_several_loop_full_reductions_give_the_same_result_every_call(staged_threshold, compiles_without_warnings):
    torch.manual_seed(0)
    x = torch.randn(50_000) * 10 + 3
    compiled = compile_graph(torch.fx.symbolic_trace(staged), [x])
    compiles_without_warnings(compiled.c_source)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        first = compiled(x)
        for _ in range(10):
            assert all(torch.equal(a, b) for a, b in zip(first, compiled(x)))
    finally:
        torch.set_num_threads(before)
    for got, want in zip(first, staged(x)):
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)


def test_a_symbolic_length_several_loop_reduction_splits_at_run_time(dynamic, staged_threshold, nthreads):
    import loom_backends

    def f(x):
        var, mean = aten.var_mean.correction(x, [0], correction=0)
        return var, mean

    gm, example = dynamic.graph(f, [torch.randn(LARGE)], {0: {0}})
    compiled = loom_backends.get("c")(gm, example)
    (graph,) = [g.compiled for g in compiled.graphs]
    assert graph.fallback_reason is None and "#pragma omp barrier" in graph.c_source
    for n in (SMALL, LARGE, 3 * LARGE):
        x = torch.randn(n) + 5
        for got, want in zip(compiled(x), f(x)):
            torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5, msg=str(n))
