"""``str.maketrans`` / ``bytes.maketrans`` (issue 29, Paddle's SOT string tests): pure functions of their
arguments, folded while tracing like ``int.from_bytes``, so ``s.translate(str.maketrans(...))`` on constant
strings stays in the graph. Each call makes a new table, as eager does."""

import torch
from breaks_harness import compare


def translated(x):
    table = str.maketrans("ab", "zy", "c")
    other = str.maketrans({"a": "1"})
    table["q"] = 1  # a new dict per call: changing it changes nothing else
    return x + len("abcabc".translate(table)), "abc".translate(other), b"ab".translate(bytes.maketrans(b"a", b"b"))


def test_maketrans_folds_in_the_graph():
    stats = compare(translated, torch.arange(3.0))
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats


def test_each_call_makes_a_new_table():
    import loom

    loom.reset()
    compiled = loom.compile(translated, backend="eager")
    x = torch.arange(3.0)
    for _ in range(2):  # the table changed by one call is not the next call's
        result, expected = compiled(x), translated(x)
        torch.testing.assert_close(result[0], expected[0])
        assert result[1:] == expected[1:]
