"""``loss.backward()`` inside a compiled function is recorded in the graph, not a graph break.

The graph holds ``torch.autograd.grad`` over the leaves the loss reaches and eager's accumulation into each
leaf's ``.grad`` (``loom_symbolic.variables.tensor_backward``); AOTAutograd traces it into backward ops
(a graph that also returns a tensor whose history its backward freed runs as captured under them:
``loom_backends.graphs.frees_history_it_returns``). Every case compares gradients, results and the
state left with eager, under each backend; what the graph cannot do exactly stays a break with its reason.
"""

from __future__ import annotations

import pytest
import torch

import loom

BACKENDS = ["eager", "aot_eager", "c"]


def _model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh(), torch.nn.Linear(3, 1))


def _grads(module):
    return [None if p.grad is None else p.grad.clone() for p in module.parameters()]


def _assert_same_grads(got, expected):
    assert [g is None for g in got] == [g is None for g in expected]
    for a, b in zip(got, expected):
        if a is not None:
            torch.testing.assert_close(a, b)


def _explain(fn, backend, *args):
    loom.reset()
    report = loom.explain(fn, backend=backend)(*args)
    return report, [str(b.reason).split("\n")[0] for b in report.breaks]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_training_step_is_one_graph_and_its_gradients_are_eagers(backend):
    model = _model()

    def step(x):
        loss = model(x).pow(2).mean()
        loss.backward()
        return loss.detach(), model[0].weight.grad.sum()

    x = torch.randn(5, 4)
    report, reasons = _explain(step, backend, x)
    assert (report.graph_count, reasons) == (1, [])
    got = _grads(model)
    model.zero_grad(set_to_none=True)
    expected = step(x)
    torch.testing.assert_close(report.result, expected)
    _assert_same_grads(got, _grads(model))


@pytest.mark.parametrize("backend", BACKENDS)
def test_gradients_accumulate_into_the_same_grad_tensors_on_later_calls(backend):
    model = _model()

    def step(x):
        model(x).sum().backward()

    x = torch.randn(2, 4)
    loom.reset()
    compiled = loom.compile(step, backend=backend, options={"strict": True})
    compiled(x)
    held = [p.grad for p in model.parameters()]
    compiled(x)
    compiled(x)
    assert all(p.grad is g for p, g in zip(model.parameters(), held))  # grown in place, as eager's
    got = _grads(model)
    model.zero_grad(set_to_none=True)
    for _ in range(3):
        step(x)
    _assert_same_grads(got, _grads(model))
    assert loom.stats()["graph_breaks"] == 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_grad_read_after_backward_sees_the_new_gradient(backend):
    w = torch.nn.Parameter(torch.tensor([1.0, -2.0, 3.0]))

    def sgd_step(x):
        (w * x).pow(2).sum().backward()
        with torch.no_grad():
            w.sub_(0.1 * w.grad)
        return w.grad * 2

    loom.reset()
    compiled = loom.compile(sgd_step, backend=backend, options={"strict": True})
    results = [compiled(torch.ones(3)) for _ in range(2)]
    got_w, got_grad = w.detach().clone(), w.grad.clone()
    with torch.no_grad():
        w.copy_(torch.tensor([1.0, -2.0, 3.0]))
    w.grad = None
    expected = [sgd_step(torch.ones(3)) for _ in range(2)]
    torch.testing.assert_close(results, expected)
    torch.testing.assert_close(got_w, w.detach())
    torch.testing.assert_close(got_grad, w.grad)
    assert loom.stats()["graph_breaks"] == 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_gradient_argument_retain_graph_and_autograd_backward(backend):
    w = torch.nn.Parameter(torch.tensor([0.5, 1.5]))

    def fn(x):
        y = w * x
        y.backward(torch.tensor([1.0, 10.0]), retain_graph=True)
        y.sum().backward()
        torch.autograd.backward([(w * w).sum()])
        return w.grad.clone()

    x = torch.tensor([2.0, 3.0])
    report, reasons = _explain(fn, backend, x)
    assert reasons == []
    got = w.grad.clone()
    w.grad = None
    torch.testing.assert_close(report.result, fn(x))
    torch.testing.assert_close(got, w.grad)


@pytest.mark.parametrize("backend", BACKENDS)
def test_leaves_made_in_the_frame_get_their_gradients(backend):
    def fn(x):
        a = x.detach().clone().requires_grad_()
        b = torch.ones(3, requires_grad=True)
        p = torch.nn.Parameter(torch.full((3,), 2.0))
        (a * b * p).sum().backward()
        return a.grad, b.grad, p.grad, a.is_leaf

    x = torch.tensor([1.0, 2.0, 3.0])
    report, reasons = _explain(fn, backend, x)
    assert reasons == []
    torch.testing.assert_close(report.result, fn(x))


@pytest.mark.parametrize("backend", BACKENDS)
def test_backward_of_a_leaf_gives_it_ones(backend):
    def fn(x):
        x.backward()
        return x.grad * 2

    x = torch.tensor(3.0, requires_grad=True)
    report, reasons = _explain(fn, backend, x)
    assert reasons == []
    torch.testing.assert_close(x.grad, torch.tensor(1.0))
    torch.testing.assert_close(report.result, torch.tensor(2.0))


def test_backward_in_an_autocast_region_keeps_the_break():
    w = torch.nn.Parameter(torch.ones(2, 2))

    def fn(x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            (x @ w).float().sum().backward()

    report, reasons = _explain(fn, "eager", torch.ones(2, 2))
    assert len(reasons) == 1 and "autocast" in reasons[0]
    torch.testing.assert_close(w.grad, torch.full((2, 2), 2.0))


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_returned_loss_keeps_eagers_freed_history(backend):
    w = torch.nn.Parameter(torch.ones(2))

    def fn(x):
        loss = (w * x).sum()
        loss.backward()
        return loss

    loom.reset()
    loss = loom.compile(fn, backend=backend, options={"strict": True})(torch.ones(2))
    assert loss.requires_grad and type(loss.grad_fn).__name__ == "SumBackward0"
    torch.testing.assert_close(w.grad, torch.ones(2))
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()  # the graph freed it, as eager's backward does


def test_a_non_leaf_input_keeps_the_break_and_its_history_gets_the_gradient():
    w = torch.nn.Parameter(torch.ones(3))

    def fn(y):
        (y * w).sum().backward()

    base = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    report, reasons = _explain(fn, "eager", base * 2)
    assert len(reasons) == 1 and "history from outside the graph" in reasons[0]
    torch.testing.assert_close(base.grad, torch.full((3,), 2.0))


def test_a_leaf_input_then_a_non_leaf_input_recompiles():
    w = torch.nn.Parameter(torch.ones(3))

    def fn(y):
        (y * w).sum().backward()

    loom.reset()
    compiled = loom.compile(fn)
    leaf = torch.ones(3, requires_grad=True)
    compiled(leaf)
    base = torch.ones(3, requires_grad=True)
    compiled(base * 3)
    torch.testing.assert_close(base.grad, torch.full((3,), 3.0))  # reached through the input's history
    torch.testing.assert_close(leaf.grad, torch.ones(3))


def test_a_hook_on_a_leaf_keeps_the_break_and_runs_and_one_added_later_recompiles():
    w = torch.nn.Parameter(torch.ones(2))
    seen = []

    def fn(x):
        (w * x).sum().backward()

    loom.reset()
    compiled = loom.compile(fn)
    compiled(torch.ones(2))
    assert loom.stats()["graph_breaks"] == 0
    handle = w.register_hook(lambda g: seen.append(g.clone()))
    compiled(torch.ones(2))  # the hooks guard fails: compiled again, and the backward stays a break
    handle.remove()
    assert len(seen) == 1
    assert loom.stats()["graph_breaks"] == 1
    torch.testing.assert_close(w.grad, torch.full((2,), 2.0))


def _hooked_step(x, w, seen):
    handle = w.register_hook(lambda g: g * 10)
    w.register_hook(lambda g: seen.append(g.sum()))  # returns None: the gradient stays
    w.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad.sum()))
    (w * x).sum().backward()
    handle.remove()
    (w * x).sum().backward()
    return w.grad * 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_hooks_the_frame_registers_on_a_leaf_run_in_the_graph_as_in_eager(backend):
    x = torch.tensor([1.0, 2.0])
    expected_seen, seen = [], []
    w = torch.nn.Parameter(torch.ones(2))
    expected = _hooked_step(x, w, expected_seen)
    w = torch.nn.Parameter(torch.ones(2))
    report, reasons = _explain(lambda x, w: _hooked_step(x, w, seen), backend, x, w)
    assert reasons == []
    torch.testing.assert_close(report.result, expected)
    torch.testing.assert_close(seen, expected_seen)
    assert len(w._backward_hooks) == 1 and len(w._post_accumulate_grad_hooks) == 1  # left as eager leaves them


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_gradient_hook_held_before_the_call_keeps_the_break(backend):
    w = torch.nn.Parameter(torch.ones(2))
    w.register_hook(lambda g: g * 3)

    def fn(x):
        (w * x).sum().backward()
        return w.grad + 0

    report, reasons = _explain(fn, backend, torch.ones(2))
    assert len(reasons) == 1 and "held gradient hooks" in reasons[0]
    torch.testing.assert_close(report.result, torch.full((2,), 3.0))  # run once, by eager's backward


def test_hooks_on_two_leaves_keep_the_break():
    a, b = torch.nn.Parameter(torch.ones(2)), torch.nn.Parameter(torch.ones(2))
    order = []

    def fn(x):
        a.register_hook(lambda g: order.append("a"))
        b.register_hook(lambda g: order.append("b"))
        (a * b * x).sum().backward()

    report, reasons = _explain(fn, "eager", torch.ones(2))
    assert len(reasons) == 1 and "several leaves" in reasons[0]
    assert sorted(order) == ["a", "b"]


def test_a_hook_returning_another_shape_raises_eagers_error():
    w = torch.nn.Parameter(torch.ones(2))

    def fn(x):
        w.register_hook(lambda g: g.sum())
        (w * x).sum().backward()

    loom.reset()
    with pytest.raises(RuntimeError, match="hook"):
        loom.compile(fn)(torch.ones(2))


def test_a_hook_on_a_tensor_the_graph_made_keeps_the_break():
    w = torch.nn.Parameter(torch.ones(2))
    seen = []

    def fn(x):
        y = w * x
        y.register_hook(lambda g: seen.append(1))
        y.sum().backward()

    report, reasons = _explain(fn, "eager", torch.ones(2))
    assert seen == [1]
    assert reasons and any("hook" in r for r in reasons)


@pytest.mark.parametrize("kwargs", [{"create_graph": True}, {"inputs": "w"}])
def test_what_the_graph_does_not_model_keeps_the_break(kwargs):
    w = torch.nn.Parameter(torch.ones(2))
    options = {k: (w if v == "w" else v) for k, v in kwargs.items()}

    def fn(x):
        (w * x).sum().backward(**options)

    report, reasons = _explain(fn, "eager", torch.ones(2))
    assert reasons == ["Tensor.backward(): runs autograd outside the graph"]
    torch.testing.assert_close(w.grad.detach(), torch.ones(2))


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_second_backward_through_a_freed_graph_raises_eagers_error(backend):
    w = torch.nn.Parameter(torch.ones(2))

    def fn(x):
        loss = (w * x).sum()
        loss.backward()
        loss.backward()

    loom.reset()
    with pytest.raises(RuntimeError, match="second time"):
        loom.compile(fn, backend=backend)(torch.ones(2))
    torch.testing.assert_close(w.grad, torch.ones(2))  # the first one ran


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_symbolic_sizes(backend):
    w = torch.nn.Parameter(torch.tensor(0.5))

    def fn(x):
        (x * w).pow(2).sum().backward()
        return w.grad.clone()

    loom.reset()
    compiled = loom.compile(fn, backend=backend, dynamic=True, options={"strict": True})
    got = []
    for n in (3, 5, 7):
        w.grad = None
        got.append(compiled(torch.arange(float(n))))
    w.grad = None
    expected = []
    for n in (3, 5, 7):
        w.grad = None
        expected.append(fn(torch.arange(float(n))))
    torch.testing.assert_close(got, expected)
    assert loom.stats()["graph_breaks"] == 0
