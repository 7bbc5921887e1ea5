"""A tensor's C method handed to the compiled function as a callable (``f(x, y.add)``, Paddle's
test_18_tensor_method): traced as the tensor's method, the tensor a graph input read through ``__self__``; another
method or another tensor is seen by the guards. It broke as "a method of a C object"."""

import torch

import loom


def _apply(x, func):
    return func(x) * 2, func(x + 1)


def test_method_of_an_argument_tensor_is_traced_and_guarded():
    loom.reset()
    compiled = loom.compile(_apply, backend="eager")
    x, y, z = torch.arange(3.0), torch.ones(3), torch.full((3,), 4.0)
    explained = loom.explain(_apply)(x, y.add)
    assert not explained.breaks, [b.what for b in explained.breaks]
    for func in (y.add, y.mul, z.add, z.sub):
        actual, expected = compiled(x, func), _apply(x, func)
        assert all(torch.equal(a, e) for a, e in zip(actual, expected)), func.__name__
