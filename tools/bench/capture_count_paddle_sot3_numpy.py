"""NumPy beside tensors, after Paddle's SOT tests (test_numpy_array, test_numpy, test_numpy_var_if,
test_segment_linear), with torch, for ``capture_count.py --only paddle_sot3``: ufuncs handed in as arguments,
ndarray operators, item reads and writes on argument arrays, arrays made in the frame mixed with tensors and
``.numpy()``, shapes sliced and handed to a module's reshape.
"""

from __future__ import annotations

import numpy as np
import torch


def c_ps3n_ufunc_argument_on_arrays(x, func, a, b):
    return x + 1, func(a, b), np.absolute(a - b)


c_ps3n_ufunc_argument_on_arrays.extra_args = lambda: (np.add, np.array([1, 2]), np.array([3, 4]))


def c_ps3n_ndarray_operators_by_name(x, a, b):
    out = []
    for op in ("+", "-", "*", "/"):
        if op == "+":
            out.append(a + b)
        elif op == "-":
            out.append(a - b)
        elif op == "*":
            out.append(a * b)
        else:
            out.append(a / b)
    return x + 1, out


c_ps3n_ndarray_operators_by_name.extra_args = lambda: (np.array([1.0, 2.0]), np.array([3.0, 4.0]))


def c_ps3n_ndarray_reductions(x, a):
    return x + 1, np.argmax(a), np.argmax(a, axis=0), np.sum(a), np.sum(a, axis=0), a.mean(), a.T.shape


c_ps3n_ndarray_reductions.extra_args = lambda: (np.array([[1, 2], [3, 4]]),)


def c_ps3n_ndarray_item_reads(x, a):
    return x + 1, a[0], a[0, 1], a[np.array([0, 1])], a[:, 1], a[a > 1]


c_ps3n_ndarray_item_reads.extra_args = lambda: (np.array([[1, 2], [3, 4]]),)


def c_ps3n_ndarray_item_writes_on_argument(x, a):
    a[0] = np.array([5, 6])
    a[np.array([1])] = 7
    return x + 1, a


c_ps3n_ndarray_item_writes_on_argument.extra_args = lambda: (np.array([[1, 2], [3, 4]]),)


def c_ps3n_tensor_from_arrays_with_grad(x):
    w = x.reshape(1, 3).expand(2, 3).clone().requires_grad_()
    y = torch.tensor(np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32))
    z = w + y
    y2 = torch.from_numpy(np.ones((3, 2))).float()
    return (z @ y2).sum()


def c_ps3n_numpy_round_trip_mixed(x):
    np_y = np.array([[1, 2, 3], [4, 5, 6]])
    pd_y2 = torch.tensor(np.transpose(np_y)).float()
    pd_z = x.reshape(1, 3) @ pd_y2
    np_z = pd_z.numpy()
    np_z2 = np.mean(np_z)
    np_z3 = np.add(x.numpy(), np_z2)
    np_z4 = np_z * np_z3[:2]
    return pd_z - torch.tensor(np_z4)


def c_ps3n_numpy_scalar_branch(x, flag):
    if flag > 0:
        return x + np.float64(1.5)
    return x - 1


c_ps3n_numpy_scalar_branch.extra_args = lambda: (np.int64(2),)


class _Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.head = torch.nn.Linear(4, 6)

    def forward(self, x, size):
        masks = self.head(x)
        h, w = size[0], size[1]
        masks = masks.reshape((1, h, w, masks.shape[-1]))
        return masks.permute(0, 3, 1, 2)


class _SegmentNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.tmp = torch.nn.Linear(1, 16)
        self.tmp2 = torch.nn.Linear(1, 1 * 2 * 2 * 2)
        self.head = _Head()

    def getshape(self, x):
        y = self.tmp2(x.mean().reshape([1])).reshape([1, 2, 2, 2])
        return y.shape

    def forward(self, x):
        shape = self.getshape(x)
        feat = self.tmp(x.mean().reshape([1])).reshape([1, 4, 4])
        return self.head(feat, shape[2:])


def c_ps3n_shape_slice_through_modules(x, net):
    out = net(x)
    return out.sum(), out.shape


c_ps3n_shape_slice_through_modules.extra_args = lambda: (_SegmentNet(),)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
