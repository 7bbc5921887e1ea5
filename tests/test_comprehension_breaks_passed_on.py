"""A comprehension with a graph break in its body (3.12 inlines it in the function): the list or dict it builds
is a live local of the resume functions, and once its length differs between their entries it is handed
on unread (``variables/passed_on.py``). ``LIST_APPEND`` / ``MAP_ADD`` on such a value failed inside the
translator ("'PassedOnValue' object has no attribute 'items'": an internal error, the frame run as is);
the append or store is now made after the graph, as ``lst.append`` on it is."""

import io

import torch

import loom

_SINK = io.StringIO()


def _compiled(fn):
    loom.reset()
    return loom.compile(fn, backend="eager", options={"strict": True})


class Stepper:
    def step(self, closure):
        return closure()


def list_of_steps(x, opt):
    def closure():
        y = x.sin() * 2
        print("step", file=_SINK)  # a graph break in every pass
        return y + 1

    losses = [opt.step(closure) for _ in range(3)]
    return torch.stack(losses)


def dict_of_steps(x, n):
    table = {i: print(i, file=_SINK) or x * i for i in range(n)}
    return table, x + 1


def test_list_comprehension_with_a_break_in_every_pass():
    x = torch.arange(3.0)
    expected = list_of_steps(x, Stepper())
    compiled = _compiled(list_of_steps)
    for _ in range(2):
        torch.testing.assert_close(compiled(x, Stepper()), expected)


def test_dict_comprehension_with_a_break_in_every_pass():
    x = torch.arange(3.0)
    compiled = _compiled(dict_of_steps)
    for n in (4, 5):
        expected = dict_of_steps(x, n)
        actual = compiled(x, n)
        assert list(actual[0]) == list(expected[0])
        for key, value in expected[0].items():
            torch.testing.assert_close(actual[0][key], value)
        torch.testing.assert_close(actual[1], expected[1])
