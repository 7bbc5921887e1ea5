"""Constructs where loom broke and torch.compile does not (misc9), for ``capture_count.py --only misc9``: the
truth of a tensor whose element count is known not to be one (eager raises without reading a value), ...
Each is written afresh over one tensor (``torch.arange(3.0)``)."""

from __future__ import annotations


# -- item 1: the truth of a tensor with no or several elements raises ---------------------------------------------
def c_m9_tensor_in_list_raises(x):
    y = x.clone()
    try:
        r = y in [x]
    except RuntimeError as e:
        r = str(e)
    return x + 1, r, x in [x]


def c_m9_if_tensor_raises(x):
    try:
        if x:
            return x + 1
        return x - 1
    except RuntimeError as e:
        return x * 2, str(e)


def c_m9_bool_not_and_or_of_tensor_raise(x):
    out = []
    for thunk in (lambda: bool(x), lambda: not x, lambda: x and 1, lambda: x or 1, lambda: 0 < x < 5):
        try:
            out.append(thunk())
        except RuntimeError as e:
            out.append(str(e))
    return x - 1, out


def c_m9_empty_tensor_truth_raises(x):
    e = x[:0]
    try:
        return bool(e)
    except RuntimeError as err:
        return x + 2, str(err), type(err).__name__


def c_m9_list_eq_index_count_raise(x):
    out = []
    for thunk in (lambda: [x] == [x.clone()], lambda: [x].index(x.clone()), lambda: (x,).count(x + 0)):
        try:
            out.append(thunk())
        except RuntimeError as e:
            out.append(str(e))
    return x * 3, out


def c_m9_one_element_tensor_truth_branches(x):
    s = x.sum().reshape(1)
    return (x + 1) if s else (x - 1), x[:1].clone() in [x[:1]]


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_") and fn.__module__ == __name__]
