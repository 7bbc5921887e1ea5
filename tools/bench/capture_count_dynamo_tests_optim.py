"""Optimizers stepped inside the compiled frame, modelled on PyTorch's test/dynamo/test_optimizers.py, for
``capture_count.py --only dynamo_tests_optim``: SGD with and without momentum (nesterov, dampening, weight
decay, maximize), Adam and AdamW with ``foreach`` on and off (amsgrad, ``capturable``), ``zero_grad`` with
and without ``set_to_none``, param groups with their own lr, reading and writing ``param_groups`` and
``state``, and whole training steps (``loss.backward(); opt.step(); opt.zero_grad()``) in one frame. Learning
rate schedulers, state dicts, closures, gradient clipping, the other optimizers and user optimizers live in
``capture_count_dynamo_tests_optim_more.py``.

Each program's ``extra_args`` builds its parameters and optimizer afresh (fixed values, no RNG), so eager
and loom start from the same state; a program returns the parameters (and optimizer state it reads) after
the step so that the state it leaves is part of its answer.
"""

from __future__ import annotations

import torch


def _param(*values):
    return torch.nn.Parameter(torch.tensor(values or (0.5, -1.0, 2.0)))


def _with(opt_cls, **kwargs):
    """``extra_args`` maker: one parameter of three values and an ``opt_cls`` over it."""
    def make():
        w = _param()
        return w, opt_cls([w], **kwargs)
    return make


def _two_groups(opt_cls, lrs=(0.1, 0.01), **kwargs):
    def make():
        a, b = _param(1.0, 2.0, 3.0), _param(-1.0, 0.5, 0.25)
        return a, b, opt_cls([{"params": [a], "lr": lrs[0]}, {"params": [b], "lr": lrs[1]}], **kwargs)
    return make


def _step(x, w, opt, times=1):
    for _ in range(times):
        loss = ((w * x).sin() + w * w).sum()
        loss.backward()
        opt.step()
        opt.zero_grad()
    return loss.detach()


def _grad_then(x, w, opt):
    """Gives ``w`` a gradient outside the optimizer's step, as the tests' model(input).sum().backward() does."""
    ((w * x).cos() * 3 + w).sum().backward()
    return opt


# -- SGD ------------------------------------------------------------------------------------------------
def c_dp_sgd_step(x, w, opt):
    y = x * 2
    _grad_then(y, w, opt).step()
    return w.detach() + y


c_dp_sgd_step.extra_args = _with(torch.optim.SGD, lr=0.1)


def c_dp_sgd_momentum_two_steps(x, w, opt):
    loss = _step(x + 1, w, opt, times=2)
    return w.detach() * 2, loss


c_dp_sgd_momentum_two_steps.extra_args = _with(torch.optim.SGD, lr=0.1, momentum=0.9)


def c_dp_sgd_nesterov(x, w, opt):
    loss = _step(x.exp(), w, opt, times=2)
    return w.detach(), loss + 1


c_dp_sgd_nesterov.extra_args = _with(torch.optim.SGD, lr=0.05, momentum=0.9, nesterov=True)


def c_dp_sgd_dampening_weight_decay(x, w, opt):
    loss = _step(x, w, opt, times=2)
    return w.detach() - x, loss


c_dp_sgd_dampening_weight_decay.extra_args = _with(torch.optim.SGD, lr=0.1, momentum=0.5, dampening=0.3,
                                                   weight_decay=0.01)


def c_dp_sgd_maximize(x, w, opt):
    _grad_then(x * 0.5, w, opt).step()
    return w.detach().sum() + x


c_dp_sgd_maximize.extra_args = _with(torch.optim.SGD, lr=0.1, maximize=True)


def c_dp_sgd_foreach(x, w, opt):
    loss = _step(x - 1, w, opt, times=2)
    return w.detach() * x, loss


c_dp_sgd_foreach.extra_args = _with(torch.optim.SGD, lr=0.1, momentum=0.9, foreach=True)


def c_dp_sgd_no_foreach(x, w, opt):
    loss = _step(x - 1, w, opt, times=2)
    return w.detach() * x, loss


c_dp_sgd_no_foreach.extra_args = _with(torch.optim.SGD, lr=0.1, momentum=0.9, foreach=False)


def c_dp_sgd_momentum_buffer_read(x, w, opt):
    _grad_then(x, w, opt).step()
    buf = opt.state[w]["momentum_buffer"]
    return buf * 2 + x, w.detach()


c_dp_sgd_momentum_buffer_read.extra_args = _with(torch.optim.SGD, lr=0.1, momentum=0.9)


def c_dp_sgd_state_empty_before_step(x, w, opt):
    before = len(opt.state)
    _grad_then(x, w, opt).step()
    return x + before, len(opt.state), w.detach()


c_dp_sgd_state_empty_before_step.extra_args = _with(torch.optim.SGD, lr=0.1, momentum=0.9)


def c_dp_sgd_two_params(x, a, b, opt):
    (a * x + b * b).sum().backward()
    opt.step()
    return a.detach() + b.detach(), x.mean()


c_dp_sgd_two_params.extra_args = _two_groups(torch.optim.SGD, lrs=(0.1, 0.1))


# -- Adam / AdamW ---------------------------------------------------------------------------------------
def c_dp_adam_step(x, w, opt):
    _grad_then(x, w, opt).step()
    return w.detach() + x.sum()


c_dp_adam_step.extra_args = _with(torch.optim.Adam, lr=0.01)


def c_dp_adam_foreach_two_steps(x, w, opt):
    loss = _step(x * 3, w, opt, times=2)
    return w.detach(), loss


c_dp_adam_foreach_two_steps.extra_args = _with(torch.optim.Adam, lr=0.01, foreach=True)


def c_dp_adam_no_foreach_two_steps(x, w, opt):
    loss = _step(x * 3, w, opt, times=2)
    return w.detach(), loss


c_dp_adam_no_foreach_two_steps.extra_args = _with(torch.optim.Adam, lr=0.01, foreach=False)


def c_dp_adam_amsgrad(x, w, opt):
    loss = _step(x.cos(), w, opt, times=2)
    return w.detach() + loss


c_dp_adam_amsgrad.extra_args = _with(torch.optim.Adam, lr=0.02, amsgrad=True)


def c_dp_adam_weight_decay_maximize(x, w, opt):
    loss = _step(x, w, opt)
    return w.detach() - loss


c_dp_adam_weight_decay_maximize.extra_args = _with(torch.optim.Adam, lr=0.01, weight_decay=0.1, maximize=True)


def c_dp_adam_capturable_off(x, w, opt):
    # capturable=True wants a CUDA parameter: on the CPU eager raises, but Adam skips that check when
    # torch.compiler.is_compiling() (loom and torch.compile both run the step), so the flag stays off here
    loss = _step(x + 2, w, opt)
    return w.detach() * 3, loss, opt.param_groups[0]["capturable"]


c_dp_adam_capturable_off.extra_args = _with(torch.optim.Adam, lr=0.01, capturable=False, foreach=False)


def c_dp_adam_state_step_read(x, w, opt):
    _step(x, w, opt, times=2)
    state = opt.state[w]
    return state["exp_avg"] + x, state["exp_avg_sq"].sum(), state["step"] + 0


c_dp_adam_state_step_read.extra_args = _with(torch.optim.Adam, lr=0.01)


def c_dp_adam_state_keys(x, w, opt):
    _step(x, w, opt)
    return x * 2, sorted(opt.state[w].keys())


c_dp_adam_state_keys.extra_args = _with(torch.optim.Adam, lr=0.01)


def c_dp_adamw_step(x, w, opt):
    loss = _step(x - 0.5, w, opt, times=2)
    return w.detach(), loss.exp()


c_dp_adamw_step.extra_args = _with(torch.optim.AdamW, lr=0.01, weight_decay=0.05)


def c_dp_adamw_foreach(x, w, opt):
    loss = _step(x - 0.5, w, opt, times=2)
    return w.detach(), loss.exp()


c_dp_adamw_foreach.extra_args = _with(torch.optim.AdamW, lr=0.01, foreach=True)


def c_dp_adamw_no_foreach(x, w, opt):
    loss = _step(x - 0.5, w, opt, times=2)
    return w.detach(), loss.exp()


c_dp_adamw_no_foreach.extra_args = _with(torch.optim.AdamW, lr=0.01, foreach=False)


def c_dp_adam_betas_tuple(x, w, opt):
    beta1, beta2 = opt.param_groups[0]["betas"]
    _grad_then(x, w, opt).step()
    return w.detach() * beta1 + beta2, x


c_dp_adam_betas_tuple.extra_args = _with(torch.optim.Adam, lr=0.01, betas=(0.8, 0.95))


def c_dp_adam_param_groups_lr(x, a, b, opt):
    (a.sin() * x + b.cos()).sum().backward()
    opt.step()
    return a.detach(), b.detach(), [g["lr"] for g in opt.param_groups]


c_dp_adam_param_groups_lr.extra_args = _two_groups(torch.optim.Adam)


# -- zero_grad ------------------------------------------------------------------------------------------
def c_dp_zero_grad_set_to_none(x, w, opt):
    (w * x).sum().backward()
    had = w.grad is not None
    opt.zero_grad(set_to_none=True)
    return x + 1, had, w.grad is None


c_dp_zero_grad_set_to_none.extra_args = _with(torch.optim.SGD, lr=0.1)


def c_dp_zero_grad_keep_zeros(x, w, opt):
    (w * x).sum().backward()
    opt.zero_grad(set_to_none=False)
    return w.grad + x, w.grad is None


c_dp_zero_grad_keep_zeros.extra_args = _with(torch.optim.SGD, lr=0.1)


def c_dp_zero_grad_default(x, w, opt):
    (w * x).sum().backward()
    opt.step()
    opt.zero_grad()
    return w.detach() + x, w.grad is None


c_dp_zero_grad_default.extra_args = _with(torch.optim.SGD, lr=0.1)


def c_dp_zero_grad_first(x, w, opt):
    opt.zero_grad()
    loss = (w * x).pow(2).sum()
    loss.backward()
    grad = w.grad.clone()
    opt.step()
    return grad, w.detach(), loss.detach()


c_dp_zero_grad_first.extra_args = _with(torch.optim.SGD, lr=0.1)


def c_dp_module_zero_grad(x, model, opt):
    model(x).sum().backward()
    opt.step()
    model.zero_grad()
    return model.weight.detach() + 0, model.weight.grad is None


def _linear(opt_cls, **kwargs):
    def make():
        model = torch.nn.Linear(3, 2)
        with torch.no_grad():
            model.weight.copy_(torch.tensor([[0.1, 0.2, 0.3], [-0.3, 0.2, -0.1]]))
            model.bias.copy_(torch.tensor([0.5, -0.5]))
        return model, opt_cls(model.parameters(), **kwargs)
    return make


c_dp_module_zero_grad.extra_args = _linear(torch.optim.SGD, lr=0.1)


def c_dp_zero_grad_no_grads_yet(x, w, opt):
    opt.zero_grad()
    return x * 2, w.grad is None


c_dp_zero_grad_no_grads_yet.extra_args = _with(torch.optim.SGD, lr=0.1)


# -- param groups ---------------------------------------------------------------------------------------
def c_dp_groups_different_lr(x, a, b, opt):
    ((a + b) * x).sum().backward()
    opt.step()
    return a.detach(), b.detach()


c_dp_groups_different_lr.extra_args = _two_groups(torch.optim.SGD)


def c_dp_groups_lr_set_in_frame(x, w, opt):
    for group in opt.param_groups:
        group["lr"] = 0.5
    _grad_then(x, w, opt).step()
    return w.detach() + x, opt.param_groups[0]["lr"]


c_dp_groups_lr_set_in_frame.extra_args = _with(torch.optim.SGD, lr=0.1)


def c_dp_groups_lr_scaled(x, a, b, opt):
    for group in opt.param_groups:
        group["lr"] *= 0.5
    (a * b * x).sum().backward()
    opt.step()
    return a.detach() + b.detach(), [g["lr"] for g in opt.param_groups]


c_dp_groups_lr_scaled.extra_args = _two_groups(torch.optim.SGD)


def c_dp_groups_count_and_params(x, a, b, opt):
    n = len(opt.param_groups)
    sizes = [len(g["params"]) for g in opt.param_groups]
    return x * n, sizes, opt.param_groups[1]["params"][0] is b


c_dp_groups_count_and_params.extra_args = _two_groups(torch.optim.SGD)


def c_dp_groups_defaults_read(x, w, opt):
    d = opt.defaults
    return x * d["lr"] + d["momentum"], d["nesterov"]


c_dp_groups_defaults_read.extra_args = _with(torch.optim.SGD, lr=0.1, momentum=0.9)


def c_dp_groups_add_param_group(x, w, opt):
    extra = torch.nn.Parameter(x.clone() + 1)
    opt.add_param_group({"params": [extra], "lr": 0.2})
    ((w + extra) * x).sum().backward()
    opt.step()
    return w.detach(), extra.detach(), len(opt.param_groups)


c_dp_groups_add_param_group.extra_args = _with(torch.optim.SGD, lr=0.1)


def c_dp_groups_momentum_differs(x, a, b, opt):
    for _ in range(2):
        (a * x + b * x * x).sum().backward()
        opt.step()
        opt.zero_grad()
    return a.detach(), b.detach()


def _momentum_groups():
    a, b = _param(1.0, 2.0, 3.0), _param(-1.0, 0.5, 0.25)
    return a, b, torch.optim.SGD([{"params": [a], "momentum": 0.9}, {"params": [b]}], lr=0.1)


c_dp_groups_momentum_differs.extra_args = _momentum_groups


# -- training steps -------------------------------------------------------------------------------------
def c_dp_train_step_linear(x, model, opt):
    out = model(x)
    loss = torch.nn.functional.mse_loss(out, torch.ones(2))
    loss.backward()
    opt.step()
    opt.zero_grad()
    return loss.detach(), model.weight.detach().clone(), model.bias.detach().clone()


c_dp_train_step_linear.extra_args = _linear(torch.optim.SGD, lr=0.1)


def c_dp_train_step_adam_linear(x, model, opt):
    for _ in range(2):
        loss = model(x).relu().sum()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    return loss.detach(), model.weight.detach().clone()


c_dp_train_step_adam_linear.extra_args = _linear(torch.optim.Adam, lr=0.01)


def c_dp_train_step_returns_loss_item(x, model, opt):
    loss = model(x * 0.1).pow(2).mean()
    loss.backward()
    opt.step()
    return loss.item(), model.bias.detach() + 1


c_dp_train_step_returns_loss_item.extra_args = _linear(torch.optim.SGD, lr=0.1)


def c_dp_train_step_loop_losses(x, model, opt):
    losses = []
    for i in range(3):
        opt.zero_grad()
        loss = (model(x + i) - 1).abs().sum()
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    return torch.stack(losses), model.weight.detach().clone()


c_dp_train_step_loop_losses.extra_args = _linear(torch.optim.SGD, lr=0.01, momentum=0.5)


def c_dp_train_step_grad_accumulation(x, model, opt):
    opt.zero_grad()
    for chunk in (x, x * 2):
        (model(chunk).sum() / 2).backward()
    grad = model.weight.grad.clone()
    opt.step()
    return grad, model.weight.detach().clone()


c_dp_train_step_grad_accumulation.extra_args = _linear(torch.optim.SGD, lr=0.1)


def c_dp_train_step_sequential(x, model, opt):
    loss = model(x).tanh().sum()
    loss.backward()
    opt.step()
    opt.zero_grad()
    return loss.detach(), [p.detach().clone() for p in model.parameters()]


def _sequential():
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape) * (i + 1))
    return model, torch.optim.AdamW(model.parameters(), lr=0.01)


c_dp_train_step_sequential.extra_args = _sequential


def c_dp_train_step_cross_entropy(x, model, opt):
    logits = model(x.unsqueeze(0))
    loss = torch.nn.CrossEntropyLoss()(logits, torch.tensor([1]))
    loss.backward()
    opt.step()
    return loss.detach(), model.weight.detach().clone()


c_dp_train_step_cross_entropy.extra_args = _linear(torch.optim.Adam, lr=0.05)


def c_dp_train_step_tensor_requires_grad(x, y, opt):
    loss = (torch.outer(x, y) ** 2).sum()
    loss.backward()
    opt.step()
    opt.zero_grad()
    return loss.detach(), y.detach().clone()


def _plain_tensor_adam():
    y = torch.tensor([0.35, -0.25, 0.15], requires_grad=True)
    return y, torch.optim.Adam([y], lr=0.01)


c_dp_train_step_tensor_requires_grad.extra_args = _plain_tensor_adam


def c_dp_manual_sgd_no_grad(x, w, opt):
    (w * x).sum().backward()
    with torch.no_grad():
        for group in opt.param_groups:
            for p in group["params"]:
                p -= group["lr"] * p.grad
    return w.detach() + 0


c_dp_manual_sgd_no_grad.extra_args = _with(torch.optim.SGD, lr=0.1)


def c_dp_manual_grad_set_none(x, w, opt):
    (w * x).sum().backward()
    opt.step()
    for p in opt.param_groups[0]["params"]:
        p.grad = None
    return w.detach() * 2, w.grad is None


c_dp_manual_grad_set_none.extra_args = _with(torch.optim.SGD, lr=0.1)


def c_dp_train_step_frozen_param(x, a, b, opt):
    b.requires_grad_(False)
    (a * b * x).sum().backward()
    opt.step()
    return a.detach(), b.detach(), b.grad is None


c_dp_train_step_frozen_param.extra_args = _two_groups(torch.optim.SGD)


def c_dp_optimizer_made_in_frame(x, w):
    opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
    (w * x).sum().backward()
    opt.step()
    return w.detach() + x


c_dp_optimizer_made_in_frame.extra_args = lambda: (_param(),)


def c_dp_optimizer_type_checks(x, w, opt):
    return x + 1, isinstance(opt, torch.optim.Optimizer), type(opt).__name__


c_dp_optimizer_type_checks.extra_args = _with(torch.optim.Adam, lr=0.01)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
