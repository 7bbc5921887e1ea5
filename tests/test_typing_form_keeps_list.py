"""A typing form keeps the list it is given (``list[args].__args__[0] is args``): the trace may not fold it into a
copy, either when it makes the form or when it reads a form made outside; it breaks there instead, and answers
as eager does."""

import torch

import loom


def _made_in_frame(x):
    args = [int]
    form = list[args]
    args.append(str)
    return x + 1, form.__args__[0] is args, len(form.__args__[0])


def _read_after(x, form, args):
    return x + 1, form.__args__[0] is args


def test_form_made_in_frame_keeps_the_program_list():
    x = torch.arange(3.0)
    loom.reset()
    expected = _made_in_frame(x)
    report = loom.explain(_made_in_frame)(x)
    assert [b.why for b in report.breaks] == ["the typing form keeps a list of the program's"]
    got = loom.compile(_made_in_frame)(x)
    assert got[1:] == expected[1:] == (True, 2)
    assert torch.equal(got[0], expected[0])


def test_form_handed_in_reads_the_program_list():
    x = torch.arange(3.0)
    args = [int]
    form = list[args]
    loom.reset()
    report = loom.explain(_read_after)(x, form, args)
    assert report.graph_count == 1 and not report.breaks
    compiled = loom.compile(_read_after)
    assert compiled(x, form, args)[1] is True
    assert compiled(x, form, [int])[1] is False  # an equal list that is not the one the form holds
