"""A randomized stress run of loom_framehook, meant to run under ``python -X dev``.

    python -X dev stress_program.py [--seconds S] [--seed N] [--threads T]

Random recursion depths, generators, closures, *args/**kwargs, methods; the callback randomly returns
None, SKIP, a one-time replacement, an Entry with a guard that passes, fails or raises, raises itself,
or returns garbage; caches are cleared at random. Every result is checked against the unhooked
answer, every exception against what was injected, and sentinel reference counts must come back to
where they started. Prints one summary line; exits non-zero on any mismatch.
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import threading
import time

import loom_framehook as fh


class Injected(Exception):
    """Raised by the stress callback or guards on purpose."""


class ProgramError(Exception):
    """Raised by the program under test on purpose."""


SENTINEL = object()


def rec(n, acc=0, *extra, bias=0, **kw):
    if n <= 0:
        return acc + bias + len(extra) + len(kw)
    return rec(n - 1, acc + n, *extra, bias=bias, **kw)


def rec_raises(n, at):
    if n == at:
        raise ProgramError(n)
    if n <= 0:
        return 0
    return 1 + rec_raises(n - 1, at)


def gen(n, payload):
    for i in range(n):
        yield (i, payload)
        if i == 2 and n > 5:
            yield from gen(n - 5, payload)


def make_closure(k):
    def inner(x, *, scale=1):
        return (x + k) * scale

    return inner


class Thing:
    def __init__(self, v):
        self.v = v

    def method(self, n, *args):
        if n <= 0:
            return self.v + sum(args)
        return self.method(n - 1, *args)


def expected_gen(n, payload):
    out = []
    for i in range(n):
        out.append((i, payload))
        if i == 2 and n > 5:
            out.extend(expected_gen(n - 5, payload))
    return out


def program(rng):
    """One random step; returns None or raises a mismatch AssertionError."""
    kind = rng.randrange(6)
    if kind == 0:
        n = rng.randrange(0, 120)
        extra = (SENTINEL,) * rng.randrange(3)
        kw = {"s": SENTINEL} if rng.random() < 0.5 else {}
        expected = sum(range(n + 1)) + 3 + len(extra) + len(kw)
        got = rec(n, 0, *extra, bias=3, **kw)
        assert got == expected, (got, expected)
    elif kind == 1:
        n = rng.randrange(1, 60)
        at = rng.randrange(0, n + 5)
        try:
            got = rec_raises(n, at)
        except ProgramError as exc:
            assert at <= n and exc.args == (at,), (at, n, exc.args)
        else:
            assert at > n and got == n, (at, n, got)
    elif kind == 2:
        n = rng.randrange(0, 12)
        g = gen(n, SENTINEL)
        if rng.random() < 0.2 and n:
            assert next(g) == (0, SENTINEL)
            if rng.random() < 0.5:
                g.close()
            else:
                try:
                    g.throw(ProgramError("thrown"))
                except ProgramError:
                    pass
        else:
            assert list(g) == expected_gen(n, SENTINEL)
    elif kind == 3:
        k = rng.randrange(10)
        f = make_closure(k)
        assert f(2, scale=3) == (2 + k) * 3
    elif kind == 4:
        t = Thing(rng.randrange(5))
        args = tuple(range(rng.randrange(4)))
        assert t.method(rng.randrange(30), *args) == t.v + sum(args)
    else:
        # exceptions crossing generator frames and replaced frames
        try:
            for item in gen(4, SENTINEL):
                if item[0] == 2:
                    rec_raises(3, 1)
        except ProgramError:
            pass


def make_callback(rng, stats):
    copies = {}

    def copy_of(code):
        c = copies.get(code)
        if c is None:
            c = copies[code] = code.replace()
        return c

    def guard_factory():
        r = rng.random()
        if r < 0.7:
            return lambda frame: True
        if r < 0.95:
            return lambda frame: rng.random() < 0.5
        def raising(frame):
            if rng.random() < 0.1:
                raise Injected("guard")
            return True
        return raising

    def cb(frame):
        code = frame.f_code
        if code.co_filename != __file__ or code.co_name in ("program", "main", "worker", "run_for"):
            return fh.SKIP
        frame.f_locals  # build it sometimes-needlessly, to exercise it
        r = rng.random()
        stats["callbacks"] += 1
        if r < 0.25:
            return None
        if r < 0.30:
            return fh.SKIP if rng.random() < 0.1 else None
        if r < 0.50:
            return copy_of(code)
        if r < 0.93:
            return fh.Entry(copy_of(code), guard_factory())
        if r < 0.97:
            raise Injected("callback")
        return 12345  # garbage: TypeError

    return cb


def run_for(seconds, seed, stats):
    rng = random.Random(seed)
    cb = make_callback(rng, stats)
    deadline = time.monotonic() + seconds
    steps = 0
    with fh.callback(cb):
        while time.monotonic() < deadline:
            for _ in range(50):
                try:
                    program(rng)
                except (Injected, TypeError) as exc:
                    stats["injected"] += 1
                    if isinstance(exc, TypeError) and "must return None, SKIP" not in str(exc):
                        raise
                steps += 1
            if rng.random() < 0.05:
                fh.clear()
    stats["steps"] += steps


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    if not sys.flags.dev_mode:
        print("warning: not running under -X dev", file=sys.stderr)
    before = sys.getrefcount(SENTINEL)
    stats = {"steps": 0, "callbacks": 0, "injected": 0}
    failures = []

    def worker(seed):
        try:
            run_for(args.seconds, seed, stats)
        except BaseException as exc:  # report every thread's failure
            failures.append(repr(exc))

    threads = [threading.Thread(target=worker, args=(args.seed + i,)) for i in range(1, args.threads)]
    for t in threads:
        t.start()
    worker(args.seed)
    for t in threads:
        t.join()
    fh.clear()
    gc.collect()
    after = sys.getrefcount(SENTINEL)
    hook = fh.stats()
    print(
        f"stress {sys.version.split()[0]}: {stats['steps']} steps, {stats['callbacks']} callbacks, "
        f"{stats['injected']} injected errors, {hook['cache_hits']} cache hits, {hook['replaced']} replaced, "
        f"sentinel refs {before}->{after}, installed={fh.is_installed()}"
    )
    if failures:
        print("FAILURES:", *failures, sep="\n  ")
        return 1
    if after != before or fh.is_installed():
        print("FAILED: reference drift or hook left installed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
