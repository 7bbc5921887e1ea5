"""Python-level gaps found by ``tools/bench/capture_count_misc14*.py`` (after PyTorch's split test_misc.py, parts 1
to 4): constructs that torch.compile captures in one graph where loom answered wrong or broke."""

import contextlib
import io

import torch

import loom


def _compiled(fn):
    loom.reset()
    return loom.compile(fn, backend="eager", options={"strict": True})


def _counts(fn, *args):
    loom.reset()
    with contextlib.redirect_stdout(io.StringIO()):
        report = loom.explain(fn)(*args)
    return report.graph_count, report.graph_break_count


def _same(got, want):
    if isinstance(want, torch.Tensor):
        assert isinstance(got, torch.Tensor)
        torch.testing.assert_close(got, want)
    elif isinstance(want, (list, tuple)):
        assert type(got) is type(want) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
    else:
        assert got == want, (got, want)


def _check(fn, *args, graphs=1, breaks=0):
    _same(_compiled(fn)(*args), fn(*args))
    assert _counts(fn, *args) == (graphs, breaks)


# -- isinstance with the legacy tensor types (torch.FloatTensor...) --------------------------------------------
def _legacy_types(x):
    return (isinstance(x, torch.FloatTensor), isinstance(x.long(), torch.LongTensor),
            isinstance(x.double(), torch.FloatTensor), isinstance(x, (torch.DoubleTensor, torch.FloatTensor)),
            isinstance(x.bool(), torch.BoolTensor), x + 1)


def test_isinstance_legacy_tensor_type_by_dtype():
    x = torch.arange(3.0)
    assert _compiled(_legacy_types)(x)[:5] == (True, True, False, True, True)
    _check(_legacy_types, x)


def test_isinstance_legacy_tensor_type_parameter_input():
    def fn(p):
        return p * 2 if isinstance(p, torch.FloatTensor) else p

    _check(fn, torch.nn.Parameter(torch.ones(2)))


# -- a class's __flags__ (type's member descriptor) ------------------------------------------------------------
_TPFLAGS_MAPPING = 1 << 6


class _MappingModule(torch.nn.ModuleDict, __import__("collections").abc.MutableMapping):
    def __hash__(self):
        return id(self)


def test_user_class_flags_read_without_break():
    def fn(x):
        return x + 1 if _MappingModule.__flags__ & _TPFLAGS_MAPPING else x - 1

    _check(fn, torch.arange(3.0))


def test_builtin_class_flags_read_without_break():
    def fn(x):
        return x + int(bool(dict.__flags__ & _TPFLAGS_MAPPING)) - int(bool(type([]).__flags__ & _TPFLAGS_MAPPING))

    _check(fn, torch.arange(3.0))


# -- len() of a global dict whose keys the translator does not model (op overload packets) ---------------------
_OP_TABLE = {torch.ops.aten.add: 1, torch.ops.aten.mul: 2}


def _table_len(x):
    return x * len(_OP_TABLE)


def test_len_of_dict_with_op_keys_is_one_graph_and_guarded():
    x = torch.arange(3.0)
    _check(_table_len, x)
    compiled = _compiled(_table_len)
    torch.testing.assert_close(compiled(x), x * 2)
    _OP_TABLE[torch.ops.aten.sub] = 3
    try:
        torch.testing.assert_close(compiled(x), x * 3)  # the length is guarded: a recompile, not a stale 2
    finally:
        del _OP_TABLE[torch.ops.aten.sub]


# -- id() of a global list or dict as a dict key ---------------------------------------------------------------
_SEEN = [1.0, 2.0]
_OTHER = {"a": 1}


def _memo_by_id(x):
    memo = {id(_SEEN): x + 1}
    if id(_SEEN) in memo and id(_OTHER) not in memo:
        return memo[id(_SEEN)] * 2
    return x


def test_id_of_global_container_as_key_is_one_graph():
    _check(_memo_by_id, torch.arange(3.0))


def test_id_of_global_container_key_guarded_by_identity():
    global _SEEN
    x = torch.arange(3.0)
    compiled = _compiled(_memo_by_id)
    torch.testing.assert_close(compiled(x), (x + 1) * 2)
    old, _SEEN = _SEEN, [3.0]
    try:
        torch.testing.assert_close(compiled(x), _memo_by_id(x))
        keyed = _compiled(lambda t: {id(_SEEN): t}.get(id(old), t - 1))
        torch.testing.assert_close(keyed(x), x - 1)
    finally:
        _SEEN = old


# -- calling a module object raises Python's TypeError in the trace ----------------------------------------------
def _call_module(x):
    try:
        return torch.fft(x)
    except TypeError as err:
        return x + len(str(err)), str(err)


def test_module_called_like_function_raises_type_error_in_trace():
    _check(_call_module, torch.arange(3.0))


def test_module_called_uncaught_raises_same_error():
    def fn(x):
        return torch.fft(x + 1)

    try:
        _compiled(fn)(torch.arange(3.0))
    except TypeError as err:
        assert str(err) == "'module' object is not callable"
    else:
        raise AssertionError("no TypeError")


# -- t.__iter__() called by name --------------------------------------------------------------------------------
def _rows_by_dunder(x):
    m = x.view(3, 1).clone()
    for row in m.__iter__():
        row.add_(1.0)
    return m, next(x.__iter__())


def test_tensor_dunder_iter_is_iteration():
    _check(_rows_by_dunder, torch.arange(3.0))


def test_tensor_dunder_iter_of_0d_raises_type_error():
    def fn(x):
        try:
            x.sum().__iter__()
        except TypeError:
            return x - 1
        return x

    _check(fn, torch.arange(3.0))


# -- warnings.catch_warnings(record=True) made, not entered ------------------------------------------------------
def test_catch_warnings_record_made_and_returned_is_one_graph():
    import warnings

    def fn(x):
        return x.sin(), warnings.catch_warnings(record=True)

    x = torch.arange(3.0)
    assert _counts(fn, x) == (1, 0)
    compiled = _compiled(fn)
    (y, first), (_, second) = compiled(x), compiled(x)
    torch.testing.assert_close(y, x.sin())
    assert type(first) is warnings.catch_warnings and first._record and first is not second
    with first as caught:  # a working manager, not entered yet
        warnings.warn("seen", stacklevel=1)
    assert len(caught) == 1


def test_catch_warnings_record_block_still_runs_as_python():
    import warnings

    def fn(x):
        with warnings.catch_warnings(record=True) as caught:
            warnings.warn("hi", stacklevel=1)
            y = x.sin()
        return y, len(caught)

    x = torch.arange(3.0)
    _same(_compiled(fn)(x), fn(x))


# -- torch._shape_as_tensor ---------------------------------------------------------------------------------------
def _sizes_plus_one(x):
    return 1 + torch._shape_as_tensor(x)[0], torch.onnx.operators.shape_as_tensor(x.view(3, 1))


def test_shape_as_tensor_is_one_graph():
    _check(_sizes_plus_one, torch.arange(3.0))


def test_shape_as_tensor_follows_the_input_size():
    def fn(t):
        return torch._shape_as_tensor(t) * 2

    compiled = _compiled(fn)
    for shape in ((3,), (4, 2), (4, 2), (5, 1, 2)):
        t = torch.ones(shape)
        _same(compiled(t), fn(t))


# -- Python number types given as dtypes ------------------------------------------------------------------------------
_TYPE_AS_DTYPE = [
    lambda x: (x * 5).to(bool).to(float).to(int) + 8,
    lambda x: x.to(dtype=float),
    lambda x: torch.zeros(3, dtype=float) + x,
    lambda x: torch.full((3,), 2, dtype=int),
    lambda x: torch.ones_like(x, dtype=complex),
    lambda x: x.new_zeros(2, dtype=bool),
    lambda x: x.sum(dtype=float),
    lambda x: x.to(torch.device("cpu"), float),
]


def test_python_number_types_as_dtypes_compile_to_eager_dtypes():
    x = torch.arange(3.0)
    for fn in _TYPE_AS_DTYPE:
        got, want = _compiled(fn)(x), fn(x)
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
        _same(got, want)
        assert _counts(fn, x) == (1, 0)


# -- torch.LongTensor of NumPy integer scalars --------------------------------------------------------------------------
def test_long_tensor_of_numpy_int_items_is_one_graph():
    import numpy as np

    def fn(x):
        arr = np.array([1, 2, 3, 4, 5, 6], dtype=np.int64)
        return torch.LongTensor([arr[0], arr[2], arr[5]]) + x.long()

    _check(fn, torch.arange(3.0))
    assert _compiled(fn)(torch.arange(3.0)).dtype == torch.int64


# -- attribute stores on a threading.local from outside -------------------------------------------------------------
def _bump_local(x, loc):
    loc.value = x
    loc.count = getattr(loc, "count", 0) + 1
    return loc.value + loc.count, sorted(vars(loc))


def test_thread_local_store_is_one_graph():
    import threading

    x = torch.arange(3.0)
    assert _counts(_bump_local, x, threading.local()) == (1, 0)
    loc, want = threading.local(), threading.local()
    _same(_compiled(_bump_local)(x, loc), _bump_local(x, want))
    assert vars(loc).keys() == vars(want).keys() and loc.count == want.count == 1


def test_thread_local_reads_the_calling_threads_dict():
    import threading

    x = torch.arange(3.0)
    compiled = _compiled(_bump_local)
    loc = threading.local()
    loc.count = 5
    torch.testing.assert_close(compiled(x, loc)[0], x + 6)
    seen = []
    worker = threading.Thread(target=lambda: seen.append((compiled(x, loc)[0], loc.count)))
    worker.start()
    worker.join()
    torch.testing.assert_close(seen[0][0], x + 1)  # the other thread has no count yet
    assert seen[0][1] == 1 and loc.count == 6


# -- id() of a module's tensor ----------------------------------------------------------------------------------------
class _IdChoice(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.y1 = torch.ones(3)
        self.y2 = torch.zeros(3)

    def forward(self, x, ref):
        return x * (self.y1 if ref == id(self.y1) else self.y2)


def test_id_of_module_tensor_compared_with_int_is_one_graph():
    mod = _IdChoice()
    x = torch.arange(3.0)
    assert _counts(mod, x, id(mod.y1)) == (1, 0)
    compiled = _compiled(mod)
    torch.testing.assert_close(compiled(x, id(mod.y1)), x)
    torch.testing.assert_close(compiled(x, id(mod.y2)), x * 0)
    old = mod.y1
    mod.y1 = torch.full((3,), 2.0)  # another tensor: the identity guard fails, the comparison is made again
    torch.testing.assert_close(compiled(x, id(old)), x * 0)
    torch.testing.assert_close(compiled(x, id(mod.y1)), x * 2)


def _swallowing_block(x):
    import warnings

    y = x + 1
    with warnings.catch_warnings(record=True) as unread:  # noqa: F841
        warnings.warn("swallowed", stacklevel=1)
        return x.sin() + y


def test_catch_warnings_record_block_with_unread_list_is_one_graph():
    import warnings

    x = torch.arange(3.0)
    assert _counts(_swallowing_block, x) == (1, 0)
    compiled = _compiled(_swallowing_block)
    with warnings.catch_warnings(record=True) as outside:
        warnings.simplefilter("always")
        got = compiled(x)
        again = compiled(x)
    torch.testing.assert_close(got, _swallowing_block(x))
    torch.testing.assert_close(again, got)
    assert outside == []  # the block's warning went to its own (unread) list, as in eager
