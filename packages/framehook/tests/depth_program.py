"""Recurse to a given depth with loom_framehook in a given mode; print the outcome.

    python depth_program.py MODE DEPTH [RECURSION_LIMIT]

MODE: 'off' (no hook), 'skip' (hook installed, every code skipped), 'skip_recursive' (the recursive
function is SKIP_RECURSIVE: it runs with the callback off, and with no thread hooked the eval function
is removed meanwhile), 'callback' (the callback runs on every frame and returns None), 'replace' (every
frame of the recursive function is served from the cache by a replacement). Prints 'ok', or 'RecursionError' (a clean failure), then 'consistent' once
the hook has been checked to still work. A crash shows as a negative return code.
"""

from __future__ import annotations

import sys

import loom_framehook as fh


def rec(n):
    if n == 0:
        return 0
    return 1 + rec(n - 1)


def main():
    mode, depth = sys.argv[1], int(sys.argv[2])
    if len(sys.argv) > 3:
        sys.setrecursionlimit(int(sys.argv[3]))
    copy = rec.__code__.replace()

    def cb(frame):
        if mode == "callback":
            return None
        if mode == "replace" and frame.f_code is rec.__code__:
            return fh.Entry(copy, lambda frame: True)
        if mode == "skip_recursive" and frame.f_code is rec.__code__:
            return fh.SKIP_RECURSIVE
        return fh.SKIP

    if mode != "off":
        fh.set_callback(cb)
    try:
        outcome = "ok" if rec(depth) == depth else "wrong"
    except RecursionError:
        outcome = "RecursionError"
    print(outcome, flush=True)
    # The hook is still consistent: a shallow call works and reaches the callback machinery.
    assert rec(10) == 10
    fh.set_callback(None)
    assert not fh.is_installed()
    print("consistent", flush=True)


if __name__ == "__main__":
    main()
