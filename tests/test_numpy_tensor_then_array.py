"""``tensor OP ndarray`` captured as eager computes it: NumPy's ufunc on ``tensor.__array__()``, wrapped
back into a new tensor by ``Tensor.__array_wrap__`` (NumPy's dtype promotion, bool results as uint8,
``x += a`` rebinding ``x`` instead of writing into it). The array on the left stays a graph break."""

from __future__ import annotations

import operator

import pytest
import torch

import loom

np = pytest.importorskip("numpy")

pytestmark = pytest.mark.filterwarnings("ignore:__array_wrap__:DeprecationWarning")  # eager's own, NumPy 2

ARITHMETIC = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod,
              operator.pow, operator.iadd, operator.imul, operator.itruediv]
BITWISE = [operator.and_, operator.or_, operator.xor, operator.lshift, operator.rshift, operator.iand]
#: (tensor, array) pairs whose NumPy result dtype differs from torch's promotion in some cases.
PAIRS = {
    "f32-f32": (torch.arange(1.0, 7.0).reshape(2, 3), np.arange(1.0, 4.0, dtype=np.float32)),
    "f32-f64": (torch.arange(1.0, 7.0).reshape(2, 3), np.arange(1.0, 4.0)),
    "i64-f32": (torch.arange(1, 7).reshape(2, 3), np.arange(1.0, 4.0, dtype=np.float32)),
    "f32-i64": (torch.arange(1.0, 4.0), np.arange(1, 4)),
    "i64-i32": (torch.arange(1, 4), np.arange(1, 4, dtype=np.int32)),
    "0d": (torch.tensor(2.0), np.array(3.0)),
}
INTS = {"i64-i32": PAIRS["i64-i32"], "bool-bool": (torch.tensor([True, False, True]), np.array([True, True, False]))}


def run(fn, x, a):
    """Eager's and loom's result (on copies), loom's (graphs, breaks), and the tensor argument after loom."""
    expected = fn(x.clone(), a.copy())
    loom.reset()
    given = x.clone()
    actual = loom.compile(fn, backend="eager")(given, a.copy())
    stats = loom.stats()
    return expected, actual, (stats["graphs"], stats["graph_breaks"]), given


def same(actual, expected) -> None:
    assert type(actual) is type(expected) is torch.Tensor
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    assert torch.equal(actual, expected), (actual, expected)


def applying(op):
    if op in (operator.iadd, operator.imul, operator.itruediv, operator.iand):
        def fn(x, a):
            y = x
            y = op(y, a)  # what `y op= a` compiles to
            return y, x
    else:
        def fn(x, a):
            return op(x, a), x
    return fn


@pytest.mark.parametrize("op", ARITHMETIC, ids=lambda op: op.__name__)
@pytest.mark.parametrize("pair", list(PAIRS), ids=str)
def test_arithmetic_is_numpys(op, pair):
    x, a = PAIRS[pair]
    expected, actual, counts, given = run(applying(op), x, a)
    same(actual[0], expected[0])
    same(actual[1], expected[1])  # not written in place: x keeps its values and dtype
    assert torch.equal(given, x)
    assert counts == (1, 0)  # integers divided too: torch._numpy runs with NumPy's float64 default


@pytest.mark.parametrize("op", BITWISE, ids=lambda op: op.__name__)
@pytest.mark.parametrize("pair", list(INTS), ids=str)
def test_integer_and_bool_operators_are_numpys(op, pair):
    x, a = INTS[pair]
    if pair == "bool-bool" and op in (operator.lshift, operator.rshift):
        x, a = x, a.astype(np.int8)
    expected, actual, counts, _ = run(applying(op), x, a)
    same(actual[0], expected[0])
    assert counts == (1, 0)


def test_bool_sum_is_uint8_as_array_wrap_makes_it():
    expected, actual, counts, _ = run(lambda x, a: x + a, *INTS["bool-bool"])
    assert expected.dtype == torch.uint8
    same(actual, expected)
    assert counts == (1, 0)


def test_the_augmented_statement_rebinds():
    def fn(x, a):
        y = x
        y += a
        y *= a
        return y, x

    x, a = PAIRS["i64-f32"]
    expected, actual, counts, _ = run(fn, x, a)
    assert expected[0].dtype == torch.float64 and expected[1].dtype == torch.int64
    same(actual[0], expected[0])
    same(actual[1], expected[1])
    assert counts == (1, 0)


def test_matmul_of_vectors_is_a_0d_tensor():
    expected, actual, counts, _ = run(lambda x, a: x @ a, *PAIRS["i64-i32"])
    assert expected.shape == ()
    same(actual, expected)
    assert counts == (1, 0)


def test_the_array_on_the_left_still_breaks_and_raises_as_eager():
    def fn(x, a):
        return a + x

    x, a = PAIRS["f32-f32"]
    with pytest.raises(TypeError) as eager:
        fn(x, a)
    loom.reset()
    with pytest.raises(TypeError) as compiled:
        loom.compile(fn, backend="eager")(x, a)
    assert str(compiled.value) == str(eager.value)
    assert loom.stats()["graph_breaks"] >= 1


def test_a_tensor_that_requires_grad_breaks_and_raises_as_eager():
    def fn(x, a):
        return x * 2 + a

    x = torch.ones(3, requires_grad=True)
    a = np.ones(3, dtype=np.float32)
    with pytest.raises(RuntimeError) as eager:
        fn(x, a)
    loom.reset()
    with pytest.raises(RuntimeError) as compiled:
        loom.compile(fn, backend="eager")(x, a)
    assert str(compiled.value) == str(eager.value)
    assert loom.stats()["graph_breaks"] >= 1
