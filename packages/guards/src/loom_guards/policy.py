"""The recompile policy: at most N compiled entries per code object, then run uncompiled, warning once.

The policy is independent of the hook. The facade tells it about guard failures (``note_failure``) and
asks it before each compile (``allow_compile``); the policy counts per key - normally the code object -
and remembers which guard kept failing so the one warning can name it.

Code objects cannot be weakly referenced, and holding them would keep every compiled function's code
alive for ever. So a code object is tracked by ``id`` together with a fingerprint of its identity
(name, file, first line, bytecode length): if the code object dies and another one is later allocated
at the same address, the fingerprint tells them apart (a byte-identical redefinition of the same
function at the same address inherits the count, which is harmless). The table is bounded
(``max_tracked``, least recently used dropped first); ``forget(key)`` drops one entry.
"""

from __future__ import annotations

import types
import warnings
from collections import Counter, OrderedDict
from typing import Any

__all__ = ["RecompileLimitWarning", "RecompilePolicy"]


class RecompileLimitWarning(UserWarning):
    """A code object reached its recompile limit and now runs uncompiled."""


def _reason_key(reason: Any) -> str:
    """What failed, without the value seen: ``"L['x'].shape[0] == 8, got 16"`` -> ``"L['x'].shape[0] == 8"``."""
    expected = getattr(reason, "expected", None)
    if isinstance(expected, str):
        return expected
    text = str(reason)
    head, sep, _ = text.rpartition(", got ")
    return head if sep else text


class _Record:
    __slots__ = ("compiles", "failures", "fingerprint", "last_reason", "name", "warned")

    def __init__(self, fingerprint: Any, name: str) -> None:
        self.fingerprint = fingerprint
        self.name = name
        self.compiles = 0
        self.failures: Counter[str] = Counter()
        self.last_reason: str | None = None
        self.warned = False


def _describe_key(key: Any) -> str:
    if isinstance(key, types.CodeType):
        return f"{key.co_qualname} ({key.co_filename}:{key.co_firstlineno})"
    return repr(key)


class RecompilePolicy:
    """At most ``limit`` compiled entries per code object (default 8).

    * ``note_failure(code, reason)``: a cached entry's guard failed (``reason`` is ``GuardFn.why_failed``'s
      result, or any text like ``"L['x'].shape[0] == 8, got 16"``).
    * ``allow_compile(code, reason=None) -> bool``: called on a cache miss, before compiling. True: go
      ahead (the compile is counted). False: the limit is reached, run the frame uncompiled; the first
      refusal for a code object warns with :class:`RecompileLimitWarning`, naming the guard that failed
      most often.
    * ``count(code)``, ``exceeded(code)``, ``forget(code)``, ``reset()``.

    Keys are code objects (tracked without keeping them alive) or any hashable value.
    """

    def __init__(self, limit: int = 8, *, max_tracked: int = 4096) -> None:
        if type(limit) is not int:
            raise TypeError(f"limit must be an int, got {type(limit).__name__}")
        if limit < 0:
            raise ValueError(f"limit must be >= 0, got {limit}")
        if type(max_tracked) is not int or max_tracked < 1:
            raise ValueError(f"max_tracked must be an int >= 1, got {max_tracked!r}")
        self.limit = limit
        self.max_tracked = max_tracked
        self._records: OrderedDict[Any, _Record] = OrderedDict()

    # -- keys ---------------------------------------------------------------------------------------
    @staticmethod
    def _ident(key: Any) -> tuple[Any, Any]:
        if isinstance(key, types.CodeType):
            return ("code", id(key)), (key.co_qualname, key.co_filename, key.co_firstlineno, len(key.co_code))
        try:
            hash(key)
        except TypeError:
            raise TypeError(f"policy keys must be code objects or hashable, got {type(key).__name__}") from None
        return ("key", key), None

    def _record(self, key: Any, create: bool) -> _Record | None:
        ident, fingerprint = self._ident(key)
        rec = self._records.get(ident)
        if rec is not None and rec.fingerprint != fingerprint:
            del self._records[ident]  # a dead code object's address, reused
            rec = None
        if rec is None:
            if not create:
                return None
            rec = _Record(fingerprint, _describe_key(key))
            self._records[ident] = rec
            while len(self._records) > self.max_tracked:
                self._records.popitem(last=False)
        else:
            self._records.move_to_end(ident)
        return rec

    # -- the protocol -------------------------------------------------------------------------------
    def note_failure(self, key: Any, reason: Any) -> None:
        """Record that a guard of ``key``'s entries failed, and why."""
        rec = self._record(key, create=True)
        assert rec is not None
        if reason is not None:
            rec.failures[_reason_key(reason)] += 1
            rec.last_reason = str(reason)

    def allow_compile(self, key: Any, reason: Any = None) -> bool:
        """Whether ``key`` may get one more compiled entry; counts it when allowed."""
        rec = self._record(key, create=True)
        assert rec is not None
        if reason is not None:
            rec.failures[_reason_key(reason)] += 1
            rec.last_reason = str(reason)
        if rec.compiles < self.limit:
            rec.compiles += 1
            return True
        if not rec.warned:
            rec.warned = True
            warnings.warn(self._message(rec), RecompileLimitWarning, stacklevel=2)
        return False

    def _message(self, rec: _Record) -> str:
        msg = (
            f"loom: {rec.name} reached the recompile limit ({self.limit}); it runs uncompiled from now on."
        )
        if rec.failures:
            (what, times), = rec.failures.most_common(1)
            msg += f" The guard that kept failing: {what} (failed {times} times)."
        if rec.last_reason is not None:
            msg += f" Last failure: {rec.last_reason}."
        if not rec.failures and rec.last_reason is None:
            msg += " No guard failure was reported."
        return msg

    def count(self, key: Any) -> int:
        """How many compiles ``key`` was allowed."""
        rec = self._record(key, create=False)
        return 0 if rec is None else rec.compiles

    def exceeded(self, key: Any) -> bool:
        """Whether ``key`` is at its limit (the next ``allow_compile`` says no)."""
        return self.count(key) >= self.limit

    def failures(self, key: Any) -> dict[str, int]:
        """How often each guard failed for ``key`` (by its expected condition)."""
        rec = self._record(key, create=False)
        return {} if rec is None else dict(rec.failures)

    def forget(self, key: Any) -> None:
        """Drop everything known about ``key`` (e.g. when its code object is gone or its cache cleared)."""
        ident, _ = self._ident(key)
        self._records.pop(ident, None)

    def reset(self) -> None:
        self._records.clear()

    def __len__(self) -> int:
        return len(self._records)

    def __repr__(self) -> str:
        return f"RecompilePolicy(limit={self.limit}, tracking {len(self._records)} keys)"
