"""NumPy code captured through torch._numpy: one graph, no break, and eager's answers exactly
(values, dtypes, result types: real ndarrays and NumPy scalars leave the compiled function)."""

from __future__ import annotations

import copy

import pytest
import torch

import loom

np = pytest.importorskip("numpy")


def same(actual, expected) -> None:
    """Equal in type, dtype, shape and every value; floats within 2 units in the last place (torch's
    and NumPy's exp and sin may round differently, compiled by torch.compile or not)."""
    assert type(actual) is type(expected), f"{type(actual)} != {type(expected)}"
    if isinstance(expected, (np.ndarray, np.generic)):
        assert actual.dtype == expected.dtype and np.shape(actual) == np.shape(expected)
        if np.issubdtype(expected.dtype, np.inexact):
            np.testing.assert_array_max_ulp(actual, expected, maxulp=2)
        else:
            np.testing.assert_array_equal(actual, expected, strict=True)
    elif isinstance(expected, torch.Tensor):
        assert actual.dtype == expected.dtype and actual.shape == expected.shape
        assert torch.equal(actual, expected) or torch.allclose(actual, expected, rtol=0, atol=0, equal_nan=True)
    elif isinstance(expected, (tuple, list)):
        assert len(actual) == len(expected)
        for a, e in zip(actual, expected):
            same(a, e)
    else:
        assert actual == expected, f"{actual!r} != {expected!r}"


def outcome(fn, args):
    try:
        return fn(*args), None
    except Exception as exc:
        return None, exc


def compare(fn, *args):
    """Run eagerly and compiled on copies; assert the same result (or exception); loom's counters."""
    expected, eager_error = outcome(fn, copy.deepcopy(args))
    loom.reset()
    compiled_args = copy.deepcopy(args)
    actual, error = outcome(loom.compile(fn, backend="eager"), compiled_args)
    stats = loom.stats()
    if eager_error is not None:
        assert type(error) is type(eager_error) and str(error) == str(eager_error)
    else:
        assert error is None, f"loom raised {error!r}"
        same(actual, expected)
    return stats, compiled_args


def captured(fn, *args):
    stats, compiled_args = compare(fn, *args)
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats
    return compiled_args


X = torch.arange(6.0).reshape(2, 3)


def ufuncs_and_iinfo(x):
    a = x.numpy()
    return torch.from_numpy(np.sin(a) + np.iinfo(np.int32).bits)


def returns_an_array(x):
    a = x.numpy()
    return np.exp(a) * 2 - np.sqrt(a), a.shape, a.ndim, a.dtype, a.T


def reductions(x):
    a = x.numpy()
    return np.sum(a), np.mean(a, axis=0), a.max(axis=1), np.sum(a, axis=1, keepdims=True), a.sum()


def matmul_and_where(x):
    a = x.numpy()
    b = a @ a.T
    return np.matmul(a, a.T), b, np.where(a > 2, a, -a), a >= 1, a == 3


def int_arrays_follow_numpy(x):
    a = x.numpy().astype(np.int64)
    return a // 2, a % 4, a * 3, np.mean(a), a.dtype == np.int64


def indexing(x):
    a = x.numpy()
    return a[0], a[:, 1], a[1, 2], a[..., None], a[a.shape[0] - 1]


def item_assignment(x):
    a = x.numpy().copy()
    a[0] = 7.0
    a[:, 1] = np.float32(-1)
    a[1, 2] += 5
    return a


def in_place_shares_memory(x):
    a = x.numpy()
    a += 1
    return x * 2


def dtypes_and_limits(x):
    a = x.numpy()
    f = np.finfo(np.float32)
    return torch.from_numpy(a * f.eps + np.iinfo(np.int16).max), np.dtype(np.float64).itemsize, f.bits


def made_in_the_trace(x):
    z = np.zeros((2, 3))  # NumPy's default float: float64
    o = np.ones(3, dtype=np.float32)
    return z + x.numpy(), o, np.arange(4), np.float32(2.5) * o


def asarray_of_a_tensor(x):
    a = np.asarray(x)
    return np.cos(a), torch.as_tensor(a) + 1


def numpy_scalars(x):
    a = x.numpy()
    s = a[0, 1]
    return s, s * 2, np.float64(1.5) + s, abs(-a), -s


def writes_into_arrays(x):
    a = x.numpy().copy()
    np.copyto(a, 3.0)
    np.put(a, [0], [9.0])
    a.put([1], [8.0])
    np.add(a, 1, out=a)
    b = np.zeros(3)
    b.fill(2.5)
    return a, b, np.asarray(a) is a


def views_share_memory(x):
    a = x.numpy()
    row = a[0]
    row[1] = 100
    return a, x + 0, [r.sum() for r in a], len(a), isinstance(a, np.ndarray)


def more_functions(x):
    a = x.numpy()
    return (np.linalg.norm(a), a.reshape(3, 2), np.concatenate([a, a]), np.stack((a, a), axis=1),
            np.clip(a, 1, 4), np.maximum(a, 2.5), np.cumsum(a, axis=1), np.einsum("ij,kj->ik", a, a),
            np.argmax(a), a.argmin(axis=0), np.all(a > -1), a.astype(np.float16) * 3, np.array([1, 2, 3]))


def integer_operators(x):
    a = x.numpy().astype(np.int32)
    return a & 3, a | 8, a ^ 1, ~a, a << 1, a >> 1, -a, a**2, 2**a, a.dtype.name


def numpy_scalars_meet_tensors(x):
    s = x.numpy().sum()
    return (x / np.sqrt(4), x * np.float64(2.5), np.float32(3) + x, x > np.int64(2), np.exp(1.0) + 1,
            x * s, s + x, x > s, x.int() * s, x.double() - s)


def array_argument(x, arr):
    return torch.from_numpy(np.sin(arr)) + x.sum(), arr * 2, arr.shape


@pytest.mark.parametrize("fn", [ufuncs_and_iinfo, returns_an_array, reductions, matmul_and_where,
                                int_arrays_follow_numpy, indexing, item_assignment, dtypes_and_limits,
                                made_in_the_trace, asarray_of_a_tensor, numpy_scalars, writes_into_arrays,
                                views_share_memory, more_functions, integer_operators,
                                numpy_scalars_meet_tensors])
def test_captured_like_eager(fn):
    captured(fn, X)


def big_arrays(x):
    a = x.numpy()  # more elements than the stand-ins copy: checked on arrays of size 1, indexing on lazy zeros
    a[3, 4] = 2.0
    return a[5, 7], a[10], np.sum(a, axis=0), (a @ a.T)[0, :3], a.astype(np.int16).dtype, a.size, a.nbytes


def test_big_arrays():
    # small integers: the sums are exact whatever order the kernels add in
    captured(big_arrays, torch.arange(400 * 200, dtype=torch.float32).reshape(400, 200) % 5)


def test_in_place_writes_reach_the_tensor():
    (x,) = captured(in_place_shares_memory, X.clone())
    assert torch.equal(x, X + 1)


def test_array_arguments_are_tensor_inputs():
    captured(array_argument, X, np.arange(4.0).reshape(2, 2))
    captured(array_argument, X, np.arange(3, dtype=np.int32))


def test_array_argument_guards_dtype_and_shape():
    loom.reset()
    compiled = loom.compile(array_argument, backend="eager")
    for arr in (np.arange(3.0), np.arange(3.0) + 1, np.arange(3, dtype=np.float32), np.arange(6.0).reshape(2, 3)):
        same(compiled(X, arr), array_argument(X, arr))
    assert loom.stats()["frames_compiled"] == 3


def test_the_returned_array_is_one_object():
    def two_names(x):
        a = np.cos(x.numpy())
        return a, a

    loom.reset()
    first, second = loom.compile(two_names, backend="eager")(X)
    assert first is second and type(first) is np.ndarray


def median(x):
    return np.median(x.numpy())  # torch._numpy gives shape (1,), NumPy a scalar


def half_tensor_times_numpy_scalar(x):
    return x.half() * x.numpy().mean()  # torch computes with the number in float32: not modelled


def array_meets_tensor(x):
    return x.numpy() / (x + 1)  # the array on the left: Tensor.__rtruediv__ takes over, not modelled


def random_numbers(x):
    np.random.seed(0)
    return x + np.random.rand()


def unmodelled_function(x):
    return np.unique(x.numpy())


def bad_cast(x):
    a = x.numpy().astype(np.int32)
    try:
        a += 1.5  # NumPy refuses the same_kind cast
    except TypeError:
        return a, "refused"
    return a, "cast"


@pytest.mark.filterwarnings("ignore:__array_wrap__:DeprecationWarning")  # eager's own, for array_meets_tensor
@pytest.mark.parametrize(("fn", "named"), [(random_numbers, "numpy.random.seed"),
                                            (unmodelled_function, "numpy.unique"),
                                            (median, "numpy.median"),
                                            (half_tensor_times_numpy_scalar, "operator mul"),
                                            (array_meets_tensor, "operator truediv"), (bad_cast, "operator iadd")])
def test_what_is_not_modelled_breaks_cleanly(fn, named):
    stats, _ = compare(fn, X)
    assert stats["graph_breaks"] >= 1
    loom.reset()
    report = loom.explain(fn)(X)
    text = str(report)
    assert named in text and "test_numpy_capture.py" in text, text


def test_an_array_argument_handed_back_is_itself():
    def written(x, arr):
        arr[0] = 5
        return arr, arr.sum()

    arr = np.arange(3.0)
    loom.reset()
    result, total = loom.compile(written, backend="eager")(X, arr)
    assert result is arr and arr[0] == 5 and total == np.float64(8.0) and type(total) is np.float64


def test_numpy_scalars_across_a_break_do_not_recompile():
    def printed(x):
        s = x.numpy().sum()
        print(end="")  # a graph break with the scalar live
        return s * 2

    loom.reset()
    compiled = loom.compile(printed, backend="eager")
    for i in range(3):
        same(compiled(X + i), printed(X + i))
    assert loom.stats()["frames_compiled"] == 2
