"""Generators the program drops while they are paused inside a ``try`` block: CPython finalizes them then.

A generator object whose last reference goes away while it is suspended at a ``yield`` covered by a
handler of its own (``try/finally``, ``except GeneratorExit``, a ``with`` block) is closed by CPython right
there: GeneratorExit is raised at the ``yield`` and the ``finally`` runs before the program goes on. This
happens when a ``for`` loop over it ends with ``break``, at ``del gen``, when the name is bound to
something else, and when the frame holding it returns. A generator with no handler at its pause has
nothing to run, so only the ones with a handler, or paused in a ``yield from`` over an iterator whose
``close`` closing them calls, are tracked (``output.paused_generators``, filled by
:meth:`~.generators.GeneratorVariable.next_item`).

After each instruction that can drop a reference (:data:`DROPS`), the values the program can still reach
are searched for those generators (:func:`~.body_escapes.reached`); each one no longer reachable is closed
in the trace, as ``gen.close()`` would. What its finalizer raises CPython reports and ignores
(``sys.unraisablehook``): that is not modelled. A value its ``finally`` returns is dropped, as CPython's
finalizer drops what ``close()`` returns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import Unsupported
from .body_escapes import FRAME_HOLDERS, reached, side_effect_roots
from .exception_values import SymbolicException

if TYPE_CHECKING:
    from .generators import GeneratorVariable
    from .protocol import Translator as InstructionTranslator

#: Instructions after which a value may have lost its last reference: a popped or overwritten stack
#: value or local (a ``for`` loop left by ``break`` pops its iterator), and a frame's return.
DROPS = frozenset({
    "POP_TOP", "STORE_FAST", "DELETE_FAST", "STORE_DEREF", "DELETE_DEREF", "STORE_FAST_STORE_FAST",
    "STORE_FAST_LOAD_FAST", "STORE_GLOBAL", "DELETE_GLOBAL", "STORE_ATTR", "DELETE_ATTR", "STORE_SUBSCR",
    "DELETE_SUBSCR", "RETURN_VALUE", "RETURN_CONST",
})


def finalize_dropped(tx: InstructionTranslator) -> None:
    """Close, in the trace, each tracked generator the program can no longer reach from ``tx``'s frame
    (just returned, if it has a return value), its callers and the values stored outside them. One held
    only by another dropped generator is closed after it, as CPython frees it with that one's frame."""
    paused = tx.output.paused_generators
    for _ in range(len(paused) + 1):
        paused[:] = [gen for gen in paused if gen.started and not gen.finished]
        if not paused:
            return
        hit = reached(_roots(tx), paused)
        dropped = [gen for gen in paused if id(gen) not in hit]
        if not dropped:
            return
        held = reached([getattr(gen.translator, name, None) for gen in dropped for name in FRAME_HOLDERS], dropped)
        first = [gen for gen in dropped if id(gen) not in held] or dropped
        closing = sorted(first, key=lambda gen: _slot(tx, gen))[0]
        paused[:] = [gen for gen in paused if gen is not closing]  # its finally drops values too: not closed again
        _close(tx, closing)


def _close(tx: InstructionTranslator, generator: GeneratorVariable) -> None:
    what = f"{generator.describe()} dropped while paused in a try block"
    try:
        generator.close(tx)
    except SymbolicException as escaped:
        raise Unsupported(what, f"its finalizer raises {escaped.exc.python_type().__name__}, which CPython "
                          "reports and ignores") from None
    generator.finished = True


def _slot(tx: InstructionTranslator, generator: GeneratorVariable) -> int:
    """Where the frame's locals hold ``generator``: CPython clears a returning frame's locals in order."""
    for index, value in enumerate(tx.symbolic_locals.values()):
        if value is generator:
            return index
    return len(tx.symbolic_locals)


def _roots(tx: InstructionTranslator) -> list[Any]:
    """What the program can still reach: every live frame's values (a generator's frame is reached through
    its callers: the one running it and the one that made it), and the values stored outside them. A frame
    that has returned only hands on its return value."""
    roots: list[Any] = side_effect_roots(tx)
    frames, seen = [tx], set()
    while frames:
        frame = frames.pop()
        if frame is None or id(frame) in seen:
            continue
        seen.add(id(frame))
        if frame is tx and tx.return_value is not None:
            roots.append(tx.return_value)
        else:
            roots += [getattr(frame, name, None) for name in FRAME_HOLDERS]
        frames += [getattr(frame, "parent", None), getattr(frame, "resumer", None)]
    return roots
