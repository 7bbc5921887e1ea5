"""Generators, coroutines and async generators: only their first call reaches the callback."""

from __future__ import annotations

import asyncio
import types

import pytest

import loom_framehook as fh


def counting(codes):
    """A callback that counts first entries of the given code objects and skips everything else."""
    counts = dict.fromkeys(codes, 0)

    def cb(frame):
        if frame.f_code in counts:
            counts[frame.f_code] += 1
            return None
        return fh.SKIP

    return cb, counts


def gen(n):
    for i in range(n):
        received = yield i
        if received is not None:
            yield ("got", received)


def gen_times_100(n):
    for i in range(n):
        received = yield i * 100
        if received is not None:
            yield ("got100", received)


def test_generator_resumptions_never_reach_callback():
    cb, counts = counting([gen.__code__])
    with fh.callback(cb):
        g = gen(5)
        assert counts[gen.__code__] == 1  # the call itself (RETURN_GENERATOR) is the first entry
        assert next(g) == 0
        assert g.send("x") == ("got", "x")
        assert list(g) == [1, 2, 3, 4]
    assert counts[gen.__code__] == 1


def test_generator_throw_and_close_never_reach_callback():
    def guarded(log):
        try:
            while True:
                yield 1
        except KeyError:
            log.append("caught")
            yield 2
        finally:
            log.append("finally")

    log = []
    cb, counts = counting([guarded.__code__])
    with fh.callback(cb):
        g = guarded(log)
        next(g)
        assert g.throw(KeyError) == 2
        g.close()
        g2 = guarded(log)
        g2.close()  # close of a never-started generator
        g3 = guarded(log)
        with pytest.raises(ValueError):
            g3.throw(ValueError)  # throw into a never-started generator
    assert log == ["caught", "finally"]
    assert counts[guarded.__code__] == 3


def test_generator_replacement_returns_replacement_generator():
    def cb(frame):
        if frame.f_code is gen.__code__:
            return fh.Entry(gen_times_100.__code__, lambda frame: True)
        return fh.SKIP

    with fh.callback(cb):
        g = gen(3)
        assert g.gi_code is gen_times_100.__code__
        assert next(g) == 0
        assert g.send("y") == ("got100", "y")
        assert list(g) == [100, 200]
        assert list(gen(2)) == [0, 100]  # a cache hit
    assert fh.stats()["cache_hits"] == 1
    assert list(gen(2)) == [0, 1]  # hook off: the original


def test_yield_from_delegation():
    def inner():
        x = yield 1
        return x * 2

    def outer():
        result = yield from inner()
        yield result

    cb, counts = counting([inner.__code__, outer.__code__])
    with fh.callback(cb):
        g = outer()
        assert next(g) == 1
        assert g.send(21) == 42
    assert counts == {inner.__code__: 1, outer.__code__: 1}


async def coro(x):
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    return x + 1


async def coro_times_10(x):
    await asyncio.sleep(0)
    return x * 10


def test_coroutine_first_call_only():
    cb, counts = counting([coro.__code__])
    with fh.callback(cb):
        assert asyncio.run(coro(1)) == 2
    assert counts[coro.__code__] == 1


def test_coroutine_replacement():
    def cb(frame):
        if frame.f_code is coro.__code__:
            return coro_times_10.__code__
        return fh.SKIP

    with fh.callback(cb):
        c = coro(4)
        assert isinstance(c, types.CoroutineType)
        assert c.cr_code is coro_times_10.__code__
        assert asyncio.run(c) == 40


def test_coroutine_throw_close_by_hand():
    @types.coroutine
    def suspend():
        return (yield "suspended")

    async def body(log):
        try:
            await suspend()
            await suspend()
        except KeyError:
            log.append("caught")
            await suspend()
        finally:
            log.append("finally")

    log = []
    cb, counts = counting([body.__code__, suspend.__code__])
    with fh.callback(cb):
        c = body(log)
        assert c.send(None) == "suspended"
        assert c.throw(KeyError) == "suspended"
        c.close()
    assert log == ["caught", "finally"]
    assert counts[body.__code__] == 1
    assert counts[suspend.__code__] == 2


async def agen(n):
    for i in range(n):
        await asyncio.sleep(0)
        yield i


async def agen_plus_1000(n):
    for i in range(n):
        yield i + 1000


def test_async_generator_first_call_only():
    async def consume():
        out = [x async for x in agen(4)]
        ag = agen(10)
        await ag.__anext__()
        await ag.aclose()
        ag2 = agen(3)
        await ag2.__anext__()
        try:
            await ag2.athrow(KeyError("k"))
        except KeyError:
            out.append("thrown")
        return out

    cb, counts = counting([agen.__code__])
    with fh.callback(cb):
        assert asyncio.run(consume()) == [0, 1, 2, 3, "thrown"]
    assert counts[agen.__code__] == 3


def test_async_generator_replacement():
    async def consume():
        return [x async for x in agen(3)]

    def cb(frame):
        if frame.f_code is agen.__code__:
            return fh.Entry(agen_plus_1000.__code__, lambda frame: True)
        return None

    with fh.callback(cb):
        assert asyncio.run(consume()) == [1000, 1001, 1002]
        assert asyncio.run(consume()) == [1000, 1001, 1002]


def test_generator_started_under_hook_resumed_without_it():
    cb, counts = counting([gen.__code__])
    with fh.callback(cb):
        g = gen(3)
    assert list(g) == [0, 1, 2]
    g2 = gen(3)
    with fh.callback(cb):
        assert list(g2) == [0, 1, 2]  # resumed under the hook: still not reported
    assert counts[gen.__code__] == 1


def test_generator_callback_error_propagates_and_frame_is_discarded():
    def cb(frame):
        if frame.f_code is gen.__code__:
            raise LookupError("no generator today")
        return fh.SKIP

    with fh.callback(cb):
        for _ in range(50):
            with pytest.raises(LookupError, match="no generator today"):
                gen(3)
    assert list(gen(2)) == [0, 1]


def test_replacement_generator_takes_the_original_function_names():
    def func():
        yield 1

    def func_replacement():
        yield 2

    func.__name__ = "renamed"
    func.__qualname__ = "Renamed.qualified"

    def cb(frame):
        if frame.f_code is func.__code__:
            return fh.Entry(func_replacement.__code__, lambda frame: True)
        return fh.SKIP

    with fh.callback(cb):
        for _ in range(2):  # the miss, then a hit
            g = func()
            assert (g.__name__, g.__qualname__) == ("renamed", "Renamed.qualified")
            assert list(g) == [2]
