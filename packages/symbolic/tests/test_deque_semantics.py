"""``list.index`` whose comparison shortens the list, run in one graph with eager's answer."""

from __future__ import annotations

import torch
from harness import check


class _Clearing:
    """Empties ``target`` when compared, answering ``result``."""

    def __init__(self, target, result):
        self.target = target
        self.result = result

    def __eq__(self, other):
        self.target.clear()
        return self.result

    __hash__ = None


def test_list_index_whose_comparison_empties_the_list():
    def fn(x):
        lst = [1, 2, 3, 4]
        lst[1] = _Clearing(lst, False)
        try:
            lst.index(9)
        except ValueError as exc:
            return x + len(lst), str(exc)
        return x, "found"

    check(fn, torch.ones(3))
