"""Make each allocation in turn fail while a hooked call runs (misses and hits); print a summary.

Uses CPython's _testcapi.set_nomemory(start, stop): allocations numbered start..stop-1 after the call
fail. Every failure must surface as MemoryError (or run normally), never crash or leak a reference.
"""

from __future__ import annotations

import _testcapi
import gc
import sys

import loom_framehook as fh


def target(a, *args, k=1, **kw):
    return (a, args, k, kw)


def gen_target(a, *args, k=1, **kw):
    yield a


COPIES = {target.__code__: target.__code__.replace(), gen_target.__code__: gen_target.__code__.replace()}


def guard(frame):
    return frame.f_locals is not None


def cb(frame):
    copy = COPIES.get(frame.f_code)
    if copy is not None:
        return fh.Entry(copy, guard)
    return fh.SKIP


def main():
    sentinel = object()
    fh.set_callback(cb)
    target(0)
    list(gen_target(0))
    before = sys.getrefcount(sentinel)
    memory_errors = 0
    for start in range(int(sys.argv[1]) if len(sys.argv) > 1 else 80):
        for miss in (False, True):
            for fn in (target, gen_target):
                if miss:
                    fh.clear(fn.__code__)
                _testcapi.set_nomemory(start, start + 1)
                try:
                    result = fn(sentinel, sentinel, k=sentinel, z=sentinel)
                    if fn is gen_target:
                        result = list(result)
                except MemoryError:
                    memory_errors += 1
                finally:
                    _testcapi.remove_mem_hooks()
                result = None
    fh.set_callback(None)
    fh.clear()
    gc.collect()
    after = sys.getrefcount(sentinel)
    print(f"memory_errors={memory_errors} refs {before}->{after} installed={fh.is_installed()}")
    return 0 if after == before and not fh.is_installed() else 1


if __name__ == "__main__":
    sys.exit(main())
