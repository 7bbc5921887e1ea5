"""``print`` in the body of ``wrap`` (issue 29): eager runs the body as a plain call; a print there of
constants and sizes to an ``io`` stream is made by the rewritten code after the graph, in program order,
so the output is eager's and the op stays in the graph. A print of a tensor, or to a stream that runs the
program's own code, still takes the op out of the graph; so does one in a checkpointed body (eager prints
again when backward recomputes it). Outside such a body a print stays a graph break where it stands."""

import io

import torch
import torch.utils.checkpoint
from harness import run_rewritten
from torch._higher_order_ops.wrap import wrap

from loom_symbolic import translate_function

X = torch.arange(3.0)
SINK = io.StringIO()


class _Echo(io.StringIO):
    def write(self, text):  # the program's own code runs on every write
        return super().write(text.upper())


ECHO = _Echo()


def prints_in_wrap(x):
    def body(t):
        print("inside", t.shape[0], t.shape, sep="|", file=SINK)
        y = t * 2
        print("end", end="!\n", file=SINK, flush=True)
        return y

    print_before = x + 1
    return wrap(body, print_before) + 1


def prints_a_tensor_in_wrap(x):
    def body(t):
        print(t, file=SINK)
        return t * 2

    return wrap(body, x)


def prints_to_an_echo_in_wrap(x):
    def body(t):
        print("loud", file=ECHO)
        return t * 2

    return wrap(body, x)


def prints_in_a_checkpoint(x):
    def body(t):
        print("body", file=SINK)
        return t.sin()

    return torch.utils.checkpoint.checkpoint(body, x, use_reentrant=False)


def prints_outside(x):
    y = x + 1
    print("between", file=SINK)
    return y * 2


def _outputs(fn, compiled, calls=2):
    SINK.seek(0)
    SINK.truncate()
    results = []
    for _ in range(calls):
        results.append(run_rewritten(fn, translate_function(fn, X), (X,), {}) if compiled else fn(X))
    return SINK.getvalue(), results


def test_a_print_in_a_wrap_body_is_made_after_the_graph():
    translation = translate_function(prints_in_wrap, X)
    assert translation.breaks == [] and len(translation.graphs) == 1
    expected, want = _outputs(prints_in_wrap, compiled=False)
    actual, got = _outputs(prints_in_wrap, compiled=True)
    assert actual == expected == "inside|3|torch.Size([3])\nend!\n" * 2
    torch.testing.assert_close(got, want)


def test_prints_that_could_differ_keep_the_op_out_of_the_graph():
    for fn in (prints_a_tensor_in_wrap, prints_to_an_echo_in_wrap, prints_in_a_checkpoint):
        assert translate_function(fn, X).breaks, fn.__name__


def test_a_print_elsewhere_is_still_a_break():
    assert [b.reason.what for b in translate_function(prints_outside, X).breaks] == ["print()"]
    expected, _ = _outputs(prints_outside, compiled=False)
    actual, _ = _outputs(prints_outside, compiled=True)
    assert actual == expected == "between\n" * 2
