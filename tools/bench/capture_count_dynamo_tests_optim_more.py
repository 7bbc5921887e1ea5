"""More optimizer programs for ``capture_count.py --only dynamo_tests_optim`` (see
``capture_count_dynamo_tests_optim.py``), after PyTorch's test/dynamo/test_optimizers.py: learning rate
schedulers stepped in the frame, ``state_dict``/``load_state_dict``, ``step(closure)``, gradient clipping
(``clip_grad_norm_``, ``clip_grad_value_``), the other optimizers the test loops over (Adagrad, RMSprop,
Adadelta, Adamax, NAdam, RAdam, ASGD, Rprop, LBFGS), a user optimizer with its own ``_init_group`` as the
test's ``MyOptimizer``, and step hooks.
"""

from __future__ import annotations

import torch
from capture_count_dynamo_tests_optim import _grad_then, _linear, _param, _step, _with


def _sched(opt_cls, sched_cls, opt_kwargs, **sched_kwargs):
    def make():
        w = _param()
        opt = opt_cls([w], **opt_kwargs)
        return w, opt, sched_cls(opt, **sched_kwargs)
    return make


# -- lr schedulers --------------------------------------------------------------------------------------
def c_dp_sched_step_lr(x, w, opt, sched):
    for _ in range(3):
        _step(x, w, opt)
        sched.step()
    return w.detach(), opt.param_groups[0]["lr"]


c_dp_sched_step_lr.extra_args = _sched(torch.optim.SGD, torch.optim.lr_scheduler.StepLR, {"lr": 0.1},
                                       step_size=2, gamma=0.5)


def c_dp_sched_exponential(x, w, opt, sched):
    _step(x + 1, w, opt)
    sched.step()
    return w.detach() * 2, sched.get_last_lr()


c_dp_sched_exponential.extra_args = _sched(torch.optim.SGD, torch.optim.lr_scheduler.ExponentialLR, {"lr": 0.1},
                                           gamma=0.9)


def c_dp_sched_lambda(x, w, opt, sched):
    for _ in range(2):
        _step(x, w, opt)
        sched.step()
    return w.detach(), opt.param_groups[0]["lr"]


c_dp_sched_lambda.extra_args = _sched(torch.optim.SGD, torch.optim.lr_scheduler.LambdaLR, {"lr": 0.1},
                                      lr_lambda=lambda epoch: 1.0 / (epoch + 1))


def c_dp_sched_cosine(x, w, opt, sched):
    for _ in range(2):
        _step(x, w, opt)
        sched.step()
    return w.detach(), sched.get_last_lr()[0]


c_dp_sched_cosine.extra_args = _sched(torch.optim.Adam, torch.optim.lr_scheduler.CosineAnnealingLR, {"lr": 0.1},
                                      T_max=4)


def c_dp_sched_multistep(x, w, opt, sched):
    lrs = []
    for _ in range(3):
        _step(x * 0.5, w, opt)
        sched.step()
        lrs.append(opt.param_groups[0]["lr"])
    return w.detach(), lrs


c_dp_sched_multistep.extra_args = _sched(torch.optim.SGD, torch.optim.lr_scheduler.MultiStepLR, {"lr": 0.1},
                                         milestones=[1, 2], gamma=0.1)


def c_dp_sched_last_epoch(x, w, opt, sched):
    sched.step()
    return x * sched.last_epoch, sched.get_last_lr()


c_dp_sched_last_epoch.extra_args = _sched(torch.optim.SGD, torch.optim.lr_scheduler.StepLR, {"lr": 0.1},
                                          step_size=1)


def c_dp_sched_linear_warmup(x, w, opt, sched):
    lrs = []
    for _ in range(2):
        _step(x, w, opt)
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    return w.detach(), lrs


c_dp_sched_linear_warmup.extra_args = _sched(torch.optim.SGD, torch.optim.lr_scheduler.LinearLR, {"lr": 0.1},
                                             start_factor=0.5, total_iters=3)


def c_dp_sched_state_dict(x, w, opt, sched):
    sched.step()
    state = sched.state_dict()
    return x + state["last_epoch"], state["base_lrs"]


c_dp_sched_state_dict.extra_args = _sched(torch.optim.SGD, torch.optim.lr_scheduler.StepLR, {"lr": 0.1},
                                          step_size=1)


def c_dp_lr_tensor(x, w, opt):
    _grad_then(x, w, opt).step()
    return w.detach() + opt.param_groups[0]["lr"]


c_dp_lr_tensor.extra_args = _with(torch.optim.Adam, lr=torch.tensor(0.01))


# -- state dicts ----------------------------------------------------------------------------------------
def c_dp_state_dict_param_groups(x, w, opt):
    sd = opt.state_dict()
    group = sd["param_groups"][0]
    return x * group["lr"], group["momentum"], group["params"]


c_dp_state_dict_param_groups.extra_args = _with(torch.optim.SGD, lr=0.1, momentum=0.9)


def c_dp_state_dict_after_step(x, w, opt):
    _step(x, w, opt)
    sd = opt.state_dict()
    return sd["state"][0]["exp_avg"] + x, sorted(sd["state"][0])


c_dp_state_dict_after_step.extra_args = _with(torch.optim.Adam, lr=0.01)


def c_dp_load_state_dict(x, w, opt):
    sd = opt.state_dict()
    sd["param_groups"][0]["lr"] = 0.5
    opt.load_state_dict(sd)
    _grad_then(x, w, opt).step()
    return w.detach(), opt.param_groups[0]["lr"]


c_dp_load_state_dict.extra_args = _with(torch.optim.SGD, lr=0.1)


def c_dp_state_dict_keys(x, w, opt):
    return x + 1, sorted(opt.state_dict().keys())


c_dp_state_dict_keys.extra_args = _with(torch.optim.SGD, lr=0.1)


def c_dp_state_items_loop(x, w, opt):
    _step(x, w, opt, times=2)
    total = x.clone()
    for p, state in opt.state.items():
        total = total + state["momentum_buffer"] * p.detach()
    return total


c_dp_state_items_loop.extra_args = _with(torch.optim.SGD, lr=0.1, momentum=0.9)


def c_dp_state_contains(x, w, opt):
    before = w in opt.state
    _step(x, w, opt)
    return x * 2, before, w in opt.state


c_dp_state_contains.extra_args = _with(torch.optim.Adam, lr=0.01)


# -- closures -------------------------------------------------------------------------------------------
def c_dp_step_closure(x, w, opt):
    def closure():
        opt.zero_grad()
        loss = (w * x - 1).pow(2).sum()
        loss.backward()
        return loss

    loss = opt.step(closure)
    return loss.detach(), w.detach()


c_dp_step_closure.extra_args = _with(torch.optim.SGD, lr=0.1)


def c_dp_step_closure_adam(x, w, opt):
    def closure():
        opt.zero_grad()
        loss = (w.exp() * x).sum()
        loss.backward()
        return loss

    losses = [opt.step(closure) for _ in range(2)]
    return torch.stack(losses).detach(), w.detach()


c_dp_step_closure_adam.extra_args = _with(torch.optim.Adam, lr=0.01)


def c_dp_step_closure_lambda(x, w, opt):
    w.grad = x.clone() + 1
    out = opt.step(lambda: x.sum())
    return out + 1, w.detach()


c_dp_step_closure_lambda.extra_args = _with(torch.optim.SGD, lr=0.1)


def c_dp_lbfgs_closure(x, w, opt):
    def closure():
        opt.zero_grad()
        loss = ((w - x) ** 2).sum()
        loss.backward()
        return loss

    loss = opt.step(closure)
    return loss.detach(), w.detach()


c_dp_lbfgs_closure.extra_args = _with(torch.optim.LBFGS, lr=0.5, max_iter=3)


def c_dp_step_returns_none(x, w, opt):
    _grad_then(x, w, opt)
    out = opt.step()
    return x + 1, out is None


c_dp_step_returns_none.extra_args = _with(torch.optim.SGD, lr=0.1)


# -- gradient clipping ----------------------------------------------------------------------------------
def c_dp_clip_grad_norm(x, w, opt):
    (w * x * 10).sum().backward()
    norm = torch.nn.utils.clip_grad_norm_([w], max_norm=1.0)
    opt.step()
    return norm + 0, w.detach()


c_dp_clip_grad_norm.extra_args = _with(torch.optim.SGD, lr=0.1)


def c_dp_clip_grad_norm_module(x, model, opt):
    model(x).pow(2).sum().backward()
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
    opt.step()
    opt.zero_grad()
    return norm.detach(), model.weight.detach().clone()


c_dp_clip_grad_norm_module.extra_args = _linear(torch.optim.SGD, lr=0.1)


def c_dp_clip_grad_norm_inf(x, w, opt):
    (w * x * 3).sum().backward()
    norm = torch.nn.utils.clip_grad_norm_([w], max_norm=0.5, norm_type=float("inf"))
    opt.step()
    return norm.detach(), w.detach()


c_dp_clip_grad_norm_inf.extra_args = _with(torch.optim.SGD, lr=0.1)


def c_dp_clip_grad_norm_foreach(x, w, opt):
    (w * x * 3).sum().backward()
    norm = torch.nn.utils.clip_grad_norm_([w], 1.0, foreach=True)
    opt.step()
    return norm.detach(), w.detach()


c_dp_clip_grad_norm_foreach.extra_args = _with(torch.optim.Adam, lr=0.1)


def c_dp_clip_grad_value(x, w, opt):
    (w * x * 5).sum().backward()
    torch.nn.utils.clip_grad_value_([w], clip_value=2.0)
    grad = w.grad.clone()
    opt.step()
    return grad, w.detach()


c_dp_clip_grad_value.extra_args = _with(torch.optim.SGD, lr=0.1)


def c_dp_clip_manual_norm(x, w, opt):
    (w * x * 5).sum().backward()
    norm = w.grad.norm()
    if norm > 1.0:
        w.grad.mul_(1.0 / norm)
    opt.step()
    return norm.detach(), w.detach()


c_dp_clip_manual_norm.extra_args = _with(torch.optim.SGD, lr=0.1)


def c_dp_get_total_norm(x, w, opt):
    (w * x).sum().backward()
    total = torch.nn.utils.get_total_norm([w.grad])
    return total + x


c_dp_get_total_norm.extra_args = _with(torch.optim.SGD, lr=0.1)


# -- the other optimizers -------------------------------------------------------------------------------
def c_dp_adagrad(x, w, opt):
    loss = _step(x, w, opt, times=2)
    return w.detach(), loss


c_dp_adagrad.extra_args = _with(torch.optim.Adagrad, lr=0.1)


def c_dp_rmsprop(x, w, opt):
    loss = _step(x, w, opt, times=2)
    return w.detach(), loss


c_dp_rmsprop.extra_args = _with(torch.optim.RMSprop, lr=0.01, momentum=0.5, centered=True)


def c_dp_adadelta(x, w, opt):
    loss = _step(x, w, opt, times=2)
    return w.detach(), loss


c_dp_adadelta.extra_args = _with(torch.optim.Adadelta, lr=1.0)


def c_dp_adamax(x, w, opt):
    loss = _step(x, w, opt, times=2)
    return w.detach(), loss


c_dp_adamax.extra_args = _with(torch.optim.Adamax, lr=0.01)


def c_dp_nadam(x, w, opt):
    loss = _step(x, w, opt, times=2)
    return w.detach(), loss


c_dp_nadam.extra_args = _with(torch.optim.NAdam, lr=0.01)


def c_dp_radam(x, w, opt):
    loss = _step(x, w, opt, times=2)
    return w.detach(), loss


c_dp_radam.extra_args = _with(torch.optim.RAdam, lr=0.01)


def c_dp_asgd(x, w, opt):
    loss = _step(x, w, opt, times=2)
    return w.detach(), loss


c_dp_asgd.extra_args = _with(torch.optim.ASGD, lr=0.01)


def c_dp_rprop(x, w, opt):
    loss = _step(x, w, opt, times=2)
    return w.detach(), loss


c_dp_rprop.extra_args = _with(torch.optim.Rprop, lr=0.01)


def c_dp_step_under_no_grad(x, w, opt):
    _grad_then(x, w, opt)
    with torch.set_grad_enabled(False):
        opt.step()
    return w.detach() + x, torch.is_grad_enabled()


c_dp_step_under_no_grad.extra_args = _with(torch.optim.Adam, lr=0.01)


# -- user optimizers ------------------------------------------------------------------------------------
class GroupInit(torch.optim.Optimizer):
    """After the test's MyOptimizer: ``_init_group`` collects params and says whether any is complex."""

    def __init__(self, params):
        super().__init__(params, {})

    def _init_group(self, params, group):
        any_complex = False
        for p in group["params"]:
            params.append(p)
            any_complex |= p.is_complex()
        return any_complex

    def step(self):
        for group in self.param_groups:
            params = []
            if self._init_group(params, group):
                params[0] -= 1
            else:
                params[0] += 1


def c_dp_user_init_group(x, w, opt):
    with torch.no_grad():
        opt.step()
    return w.detach() * x


c_dp_user_init_group.extra_args = lambda: (lambda w: (w, GroupInit([w])))(
    torch.nn.Parameter(torch.ones(3), requires_grad=False))


class SignSGD(torch.optim.Optimizer):
    """A user optimizer with defaults, per-parameter state and ``@torch.no_grad()`` on its step."""

    def __init__(self, params, lr=0.1):
        super().__init__(params, {"lr": lr})

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                state["steps"] = state.get("steps", 0) + 1
                p.add_(p.grad.sign(), alpha=-group["lr"])
        return None


def c_dp_user_sign_sgd(x, w, opt):
    _step(x, w, opt, times=2)
    return w.detach() + x, opt.state[w]["steps"]


c_dp_user_sign_sgd.extra_args = _with(SignSGD, lr=0.05)


def c_dp_user_optimizer_made_in_frame(x, w):
    opt = SignSGD([w], lr=0.2)
    (w * x).sum().backward()
    opt.step()
    return w.detach(), len(opt.param_groups)


c_dp_user_optimizer_made_in_frame.extra_args = lambda: (_param(),)


class Scaled(torch.optim.SGD):
    """A subclass of SGD whose step scales the gradients first."""

    def step(self, closure=None):
        with torch.no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    p.grad.mul_(0.5)
        return super().step(closure)


def c_dp_user_sgd_subclass(x, w, opt):
    _grad_then(x, w, opt).step()
    return w.detach() - x


c_dp_user_sgd_subclass.extra_args = _with(Scaled, lr=0.1)


# -- step hooks -----------------------------------------------------------------------------------------
def c_dp_step_post_hook(x, w, opt):
    seen = []
    handle = opt.register_step_post_hook(lambda o, args, kwargs: seen.append(len(o.param_groups)))
    _grad_then(x, w, opt).step()
    handle.remove()
    return w.detach() + x, seen


c_dp_step_post_hook.extra_args = _with(torch.optim.SGD, lr=0.1)


def c_dp_step_pre_hook_scales_lr(x, w, opt):
    def pre(o, args, kwargs):
        o.param_groups[0]["lr"] = 0.3

    handle = opt.register_step_pre_hook(pre)
    _grad_then(x, w, opt).step()
    handle.remove()
    return w.detach(), opt.param_groups[0]["lr"]


c_dp_step_pre_hook_scales_lr.extra_args = _with(torch.optim.SGD, lr=0.1)


def c_dp_param_hook_accumulates(x, w, opt):
    grads = []
    handle = w.register_hook(lambda g: grads.append(g.sum()) or g * 2)
    (w * x).sum().backward()
    handle.remove()
    opt.step()
    return w.detach(), len(grads)


c_dp_param_hook_accumulates.extra_args = _with(torch.optim.SGD, lr=0.1)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
