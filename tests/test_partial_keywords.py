"""``p.keywords`` of a ``functools.partial`` is the partial's own dict, as in CPython: what the traced code
stores into it is what the partial passes from then on, in the trace and after it (a partial from the frame
gets the store replayed on its real dict; one made in the trace is rebuilt over the very dict the trace held).
Before, the read gave a copy, so the store was lost: the call after it and the partial left behind used the
old keyword (a wrong answer)."""

import functools

import torch

import loom


def _mul(t, k=2):
    return t * k


def _compiled(fn, *args, calls=1):
    loom.reset()
    compiled = loom.compile(fn, backend="eager", options={"strict": True})
    results = [compiled(*args) for _ in range(calls)]
    return results, loom.stats()


def bump_keyword(x, p):
    y = p(x)
    p.keywords["k"] = p.keywords["k"] + 1
    return y, p(x)


def test_keyword_stored_into_a_partial_from_the_frame_is_kept():
    p_eager, p_loom = functools.partial(_mul, k=2), functools.partial(_mul, k=2)
    expected = [bump_keyword(torch.ones(2), p_eager) for _ in range(2)]
    results, stats = _compiled(bump_keyword, torch.ones(2), p_loom, calls=2)
    for got, want in zip(results, expected):
        torch.testing.assert_close(got, want)
    assert p_loom.keywords == p_eager.keywords == {"k": 4}
    assert stats["graph_breaks"] == 0, stats


def keywords_of_made_partial(x):
    p = functools.partial(_mul, k=2)
    p.keywords["k"] = 5
    kw = p.keywords
    return p(x), p, kw


def test_partial_made_in_the_trace_shares_its_keywords_dict():
    (result,), stats = _compiled(keywords_of_made_partial, torch.ones(2))
    y, p, kw = result
    torch.testing.assert_close(y, torch.full((2,), 5.0))
    assert kw is p.keywords and p(torch.ones(1)).item() == 5.0
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats
