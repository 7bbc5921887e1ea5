"""How many graph breaks a compiled frame adds to ``loom.stats()["graph_breaks"]``: one construct, one break.

A construct the translator cannot model is often met by more than one frame: the caller breaks at its
call into a helper because the helper holds the construct, then the helper's own frame, run natively and
compiled in its turn, breaks at the same construct, and may split its own graph there. That is one
construct, so one break: the helper's repeat adds none, whether the helper captured a graph before the
construct, after it, or neither (a sort key ``lambda t: t.sum().item()``, which ``list.sort`` calls
natively after its caller broke at the sort, captures ``t.sum()`` and then stops at ``item()``; a training
step's ``loss.backward()`` in a helper that its caller called). The graphs it makes are counted as graphs.

A construct inside a loop is met again on each later pass, by the resume codes the first break made (one
per place the loop resumes, each compiled once or a few times): that is still one construct, so a resume
code's break at an instruction its function already broke at (it resumes where an earlier break resumed)
adds none: a loop of 32 blocks with a ``print`` in each is one break, not one per pass. Nor does the
loop's ``FOR_ITER``, taken natively once its iterator is seen at another position on each pass
(``loop_iterator_moved``; CPython 3.11's comprehension functions loop over such an iterator). A fresh compile of
the function itself (a new shape, a recompile) counts its breaks again, as torch.compile does.

An exception no handler of the frame catches (``reason.raises_out``) is no graph break: the frame ends
there, by raising, as it would end by returning; what runs natively is the raise and its unwinding. A
graph before it counts as a graph. torch.compile does not count it either (it runs such a frame as is).
"""

from __future__ import annotations

import types
from typing import Any

import loom_symbolic

Site = tuple[str, "int | None", str]


def site_of(reason: Any) -> Site:
    """Where a graph break's construct is: the user's file and line of its innermost location, and what broke."""
    where = reason.location
    return (where.filename, where.lineno, reason.what) if where is not None else ("", None, reason.what)


class BreakCounter:
    """The break sites counted since the last reset, and where resume codes resume their functions."""

    def __init__(self) -> None:
        # (file, line, what) of every graph break counted since the last reset: see count.
        self._sites: set[Site] = set()
        # Site → the codes whose break reached it through a call (the construct is in a callee): see count.
        self._reached: dict[Site, set[types.CodeType]] = {}
        # Resume code → the code of the function it resumes (its resume codes' too): see count.
        self._origins: dict[types.CodeType, types.CodeType] = {}
        # Function code → the points (code, instruction index) where its breaks resumed it.
        self._points: dict[types.CodeType, set[tuple[types.CodeType, int]]] = {}
        # Function code → the sites its own and its resume codes' breaks were at.
        self._origin_sites: dict[types.CodeType, set[Site]] = {}

    def count(self, code: types.CodeType, translation: loom_symbolic.Translation) -> int:
        """How many of the translation of ``code``'s breaks are new ones. One construct, one break, not one per
        frame it is reached from: a frame that stopped at a construct another code reached through a call into
        it (its caller's break, already counted) adds none for it. A frame that captured no graph repeats any
        site counted before; one that captured a graph repeats only a site another code reached through a call
        (its own break, met again when it is compiled once more, still counts)."""
        items = [item for item in translation.breaks if not item.reason.raises_out]
        sites = [site_of(item.reason) for item in items]
        looped = self._met_again(code, translation, items, sites)
        if looped:
            items = [item for item, site in zip(items, sites) if site not in looped]
            sites = [site for site in sites if site not in looped]
        if translation.graphs:
            repeated = sum(self._reached_by_another(site, code) for site in sites)
        else:
            repeated = sum(site in self._sites for site in sites)
        self._sites.update(sites)
        for item, site in zip(items, sites):
            if _reached_through_a_call(code, item.reason):
                self._reached.setdefault(site, set()).add(code)
        return len(sites) - repeated

    def _met_again(self, code: types.CodeType, translation: loom_symbolic.Translation, items: list[Any],
                   sites: list[Site]) -> set[Site]:
        """The sites of a resume code's breaks met again: a resume code's translation that resumes only at
        points of its function where earlier breaks of it resumed (``loom_symbolic.resume_point``) broke at
        those very instructions, on a later pass of a loop. Records the points ``code``'s translation adds."""
        origin = self._origins.get(code, code)
        points = [loom_symbolic.resume_point(resume) for resume in translation.resume_functions]
        for resume in translation.resume_functions:
            self._origins.setdefault(resume, origin)
        known = self._points.setdefault(origin, set())
        again = code is not origin and bool(points) and None not in points and all(p in known for p in points)
        known.update(p for p in points if p is not None)
        counted = self._origin_sites.setdefault(origin, set())
        if again:
            found = set(sites)
        elif code is not origin:
            # a resume code whose loop's break moved to its FOR_ITER (the iterator stands elsewhere on each
            # pass): the body's construct, which its function counted; or that FOR_ITER itself, taken
            # natively because the iterator moved (the loop's own, after the body's break)
            found = {site for item, site in zip(items, sites)
                     if (item.reason.at_loop_head and site in counted) or item.reason.loop_iterator_moved}
        else:
            found = set()
        counted.update(sites)
        return found

    def _reached_by_another(self, site: Site, code: types.CodeType) -> bool:
        """Whether other codes broke at ``site`` reaching it through a call (into ``code``), and ``code`` never
        did: a code that reached it itself before is compiled once more, and counts its break again."""
        codes = self._reached.get(site)
        return codes is not None and code not in codes

    def clear(self) -> None:
        """Forget every site counted (``loom.reset``)."""
        self._sites.clear()
        self._reached.clear()
        self._origins.clear()
        self._points.clear()
        self._origin_sites.clear()


def _reached_through_a_call(code: types.CodeType, reason: Any) -> bool:
    """Whether the construct a break of ``code`` stopped at is in a function ``code`` calls, not in ``code``."""
    where = reason.location
    return bool(reason.stack) or (where is not None and where.function != code.co_qualname)
