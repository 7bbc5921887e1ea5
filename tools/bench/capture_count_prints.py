"""``print`` in compiled code, for ``capture_count.py --only prints``: a print of tensors and constants is a node
of the graph (in eager's order, its text eager's: the runner compares what each run prints); a print the node
cannot make (to another stream, without a newline, of a tensor that requires grad, inside a ``redirect_stdout``
entered in the frame) stays one graph break.
"""

from __future__ import annotations

import contextlib
import io
import sys

import torch


def c_pr_tensor_between_ops(x):
    y = x + 1
    print("y", y)
    return y * 2


def c_pr_constants_and_containers(x):
    print("config", {"lr": 0.1, "steps": (1, 2)}, [None, True], 3.5, sep=", ")
    return x.sin()


def c_pr_sep_and_end(x):
    y = x.cos()
    print("cos", y, y.shape, sep=" | ", end=" <\n")
    return y


def c_pr_every_pass_of_a_loop(x):
    for step in range(5):
        x = x * 0.5 + step
        print("step", step, x)
    return x


def c_pr_in_a_helper(x):
    def logged(name, value):
        print(name, value)
        return value

    return logged("a", x + 1) * logged("b", x - 1)


def c_pr_before_and_after_an_in_place_write(x):
    y = x * 2
    print(y)
    y.add_(1)
    print(y)
    return y


def c_pr_under_no_grad(x):
    w = torch.ones(3, requires_grad=True)
    with torch.no_grad():
        y = x * w
        print("no grad", y)
    return y


def c_pr_in_a_module_forward(x):
    class Scaled(torch.nn.Module):
        def forward(self, t):
            t = t * 3
            print("forward", t)
            return t - 1

    return Scaled()(x)


def c_pr_to_another_stream_breaks(x):
    y = x + 1
    print("to stderr", y, file=sys.stderr)
    return y * 2


def c_pr_without_a_newline_breaks(x):
    y = x + 1
    print("no newline", y, end="")
    return y * 2


def c_pr_tensor_requiring_grad_breaks(x):
    w = torch.ones(3, requires_grad=True)
    y = x * w
    print(y)  # its text shows grad_fn=<MulBackward0>
    return y.detach()


def c_pr_inside_a_redirect_made_in_the_frame_breaks(x):
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        y = x.exp()
        print("exp", y)
    return y, buffer.getvalue()


CONSTRUCTS = [c_pr_tensor_between_ops, c_pr_constants_and_containers, c_pr_sep_and_end, c_pr_every_pass_of_a_loop,
              c_pr_in_a_helper, c_pr_before_and_after_an_in_place_write, c_pr_under_no_grad, c_pr_in_a_module_forward,
              c_pr_to_another_stream_breaks, c_pr_without_a_newline_breaks, c_pr_tensor_requiring_grad_breaks,
              c_pr_inside_a_redirect_made_in_the_frame_breaks]
