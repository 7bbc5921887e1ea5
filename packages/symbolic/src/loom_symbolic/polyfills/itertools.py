"""``itertools``' iterators, as Python generators that consume their inputs as lazily as the real ones.

Where the C constructor checks its arguments (or reads its inputs whole) at the call, so does the
polyfill: it checks, then returns a generator.
"""

from __future__ import annotations

import itertools as _itertools
import operator as _operator
from typing import Any

from .registry import c_iterator_module, polyfill

_NOTHING = object()
c_iterator_module(__file__)  # a StopIteration the user's function raises ends the iterator, as in C


@polyfill(_itertools.chain)
def chain(*iterables: Any) -> Any:
    """``itertools.chain(a, b, ...)``."""
    for iterable in iterables:
        yield from iterable


@polyfill(_itertools.chain, "from_iterable")
def chain_from_iterable(iterables: Any, /) -> Any:
    """``itertools.chain.from_iterable(iterables)``."""
    for iterable in iterables:
        yield from iterable


@polyfill(_itertools.product)
def product(*iterables: Any, repeat: int = 1) -> Any:
    """``itertools.product(a, b, ..., repeat=1)``: every input is read whole at the call, as in C."""
    if repeat < 0:
        raise ValueError("repeat argument cannot be negative")
    pools = [tuple(pool) for pool in iterables] * repeat
    combos: list[tuple] = [()]
    for pool in pools:
        combos = [(*combo, item) for combo in combos for item in pool]
    return iter(combos)


def _combinations(pool: tuple, start: int, r: int) -> Any:
    if r == 0:
        yield ()
        return
    for i in range(start, len(pool) - r + 1):
        for rest in _combinations(pool, i + 1, r - 1):
            yield (pool[i], *rest)


@polyfill(_itertools.combinations)
def combinations(iterable: Any, r: int) -> Any:
    """``itertools.combinations(iterable, r)``, in lexicographic order of positions."""
    if r < 0:
        raise ValueError("r must be non-negative")
    return _combinations(tuple(iterable), 0, r)


def _combinations_with_replacement(pool: tuple, start: int, r: int) -> Any:
    if r == 0:
        yield ()
        return
    for i in range(start, len(pool)):
        for rest in _combinations_with_replacement(pool, i, r - 1):
            yield (pool[i], *rest)


@polyfill(_itertools.combinations_with_replacement)
def combinations_with_replacement(iterable: Any, r: int) -> Any:
    """``itertools.combinations_with_replacement(iterable, r)``, in lexicographic order of positions."""
    if r < 0:
        raise ValueError("r must be non-negative")
    return _combinations_with_replacement(tuple(iterable), 0, r)


def _permutations(pool: tuple, r: int) -> Any:
    if r == 0:
        yield ()
        return
    for i in range(len(pool)):
        for rest in _permutations(pool[:i] + pool[i + 1:], r - 1):
            yield (pool[i], *rest)


@polyfill(_itertools.permutations)
def permutations(iterable: Any, r: int | None = None) -> Any:
    """``itertools.permutations(iterable, r=None)``, in lexicographic order of positions."""
    pool = tuple(iterable)
    size = len(pool) if r is None else r
    if size < 0:
        raise ValueError("r must be non-negative")
    return _permutations(pool, size) if size <= len(pool) else iter(())


@polyfill(_itertools.islice)
def islice(iterable: Any, *args: Any) -> Any:
    """``itertools.islice(iterable, stop)`` / ``(iterable, start, stop[, step])``: reads up to ``stop``.
    Bad bounds raise at the call, as in C (the generators above validate nothing they could raise)."""
    if not 1 <= len(args) <= 3:
        raise TypeError(f"islice expected at most 4 arguments, got {len(args) + 1}")
    bounds = slice(*args)
    start = 0 if bounds.start is None else bounds.start
    step = 1 if bounds.step is None else bounds.step
    stop = bounds.stop
    if stop is not None and stop < 0:
        raise ValueError("Stop argument for islice() must be None or an integer: 0 <= x <= sys.maxsize.")
    if start < 0:
        raise ValueError("Indices for islice() must be None or an integer: 0 <= x <= sys.maxsize.")
    if step < 1:
        raise ValueError("Step for islice() must be a positive integer or None.")
    return _islice(iter(iterable), start, stop, step)


def _islice(it: Any, start: int, stop: int | None, step: int) -> Any:
    index, wanted = 0, start
    while stop is None or index < stop:
        try:
            element = next(it)
        except StopIteration:
            return
        if index == wanted:
            yield element
            wanted += step
        index += 1


@polyfill(_itertools.accumulate)
def accumulate(iterable: Any, func: Any = None, *, initial: Any = None) -> Any:
    """``itertools.accumulate(iterable, func=operator.add, *, initial=None)``."""
    combine = _operator.add if func is None else func
    it = iter(iterable)
    total = initial
    if initial is None:
        try:
            total = next(it)
        except StopIteration:
            return
    yield total
    for element in it:
        total = combine(total, element)
        yield total


@polyfill(_itertools.pairwise)
def pairwise(iterable: Any, /) -> Any:
    """``itertools.pairwise(iterable)``: overlapping pairs."""
    it = iter(iterable)
    previous = next(it, _NOTHING)
    if previous is _NOTHING:
        return
    for element in it:
        yield previous, element
        previous = element


@polyfill(_itertools.repeat)
def repeat(obj: Any, times: int | None = None) -> Any:
    """``itertools.repeat(obj, times=None)``."""
    if times is None:
        while True:
            yield obj
    for _ in range(times):
        yield obj


@polyfill(_itertools.count)
def count(start: Any = 0, step: Any = 1) -> Any:
    """``itertools.count(start=0, step=1)``."""
    value = start
    while True:
        yield value
        value += step


@polyfill(_itertools.cycle)
def cycle(iterable: Any, /) -> Any:
    """``itertools.cycle(iterable)``: the items, saved on the first pass, then the saved ones forever."""
    return _cycle(iter(iterable))


def _cycle(it: Any) -> Any:
    saved = []
    for element in it:
        yield element
        saved.append(element)
    while saved:
        yield from saved


@polyfill(_itertools.tee)
def tee(iterable: Any, n: int = 2, /) -> tuple:
    """``itertools.tee(iterable, n=2)``: ``n`` iterators over one input, each item read from it once
    and kept in a linked buffer until every one has passed it."""
    if n < 0:
        raise ValueError("n must be >= 0")
    it = iter(iterable)
    link: list = [None, None]
    return tuple(_tee(it, link) for _ in range(n))


def _tee(it: Any, link: list) -> Any:
    while True:
        if link[1] is None:
            value = next(it, _NOTHING)
            if value is _NOTHING:
                return
            link[0] = value
            link[1] = [None, None]
        value, link = link
        yield value


@polyfill(_itertools.zip_longest)
def zip_longest(*iterables: Any, fillvalue: Any = None) -> Any:
    """``itertools.zip_longest(a, b, ..., fillvalue=None)``."""
    iterators = [iter(iterable) for iterable in iterables]
    live = len(iterators)
    if not live:
        return
    while True:
        row = []
        for i, it in enumerate(iterators):
            element = next(it, _NOTHING)
            if element is _NOTHING:
                live -= 1
                if not live:
                    return
                iterators[i] = repeat(fillvalue)
                element = fillvalue
            row.append(element)
        yield tuple(row)


@polyfill(_itertools.starmap)
def starmap(function: Any, iterable: Any, /) -> Any:
    """``itertools.starmap(function, iterable)``."""
    for args in iterable:
        yield function(*args)


@polyfill(_itertools.takewhile)
def takewhile(predicate: Any, iterable: Any, /) -> Any:
    """``itertools.takewhile(predicate, iterable)``."""
    for element in iterable:
        if not predicate(element):
            return
        yield element


@polyfill(_itertools.dropwhile)
def dropwhile(predicate: Any, iterable: Any, /) -> Any:
    """``itertools.dropwhile(predicate, iterable)``."""
    it = iter(iterable)
    for element in it:
        if not predicate(element):
            yield element
            break
    yield from it


@polyfill(_itertools.compress)
def compress(data: Any, selectors: Any) -> Any:
    """``itertools.compress(data, selectors)``."""
    for element, selected in zip(data, selectors):
        if selected:
            yield element


@polyfill(_itertools.filterfalse)
def filterfalse(predicate: Any, iterable: Any, /) -> Any:
    """``itertools.filterfalse(predicate, iterable)``."""
    keep = bool if predicate is None else predicate
    for element in iterable:
        if not keep(element):
            yield element


@polyfill(_itertools.groupby)
def groupby(iterable: Any, key: Any = None) -> Any:
    """``itertools.groupby(iterable, key=None)``: ``iter()`` at the call, as in C. The groups share the
    input: moving the outer iterator on ends the group it handed out before (which then yields nothing)."""
    return _groupby(iter(iterable), key)


def _same_key(a: Any, b: Any) -> bool:
    return a is b or bool(a == b)  # PyObject_RichCompareBool: identity first


def _groupby(it: Any, keyfunc: Any) -> Any:
    state = [_NOTHING, _NOTHING, _NOTHING, 0]  # target key, current key, current value, the live group's number
    number = 0
    while True:
        state[3] = 0  # no group is live while the outer iterator skips to the next key
        while state[1] is _NOTHING or (state[0] is not _NOTHING and _same_key(state[0], state[1])):
            try:
                value = next(it)
            except StopIteration:
                return
            state[1] = value if keyfunc is None else keyfunc(value)
            state[2] = value
        state[0] = state[1]
        number += 1
        state[3] = number
        yield state[1], _grouper(it, keyfunc, state, number, state[0])


def _grouper(it: Any, keyfunc: Any, state: list, number: int, target: Any) -> Any:
    while state[3] == number:
        if state[2] is _NOTHING:
            try:
                value = next(it)
            except StopIteration:
                return
            state[1] = value if keyfunc is None else keyfunc(value)
            state[2] = value
        if not _same_key(target, state[1]):
            return
        value, state[2] = state[2], _NOTHING
        yield value
