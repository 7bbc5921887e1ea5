"""A tuple holding a tensor (or another member hashed by identity) as a dict key or set member: ``{("a", x)}``,
``{(name, t): 1}``, ``set(d.items())`` of a dict of tensors.

CPython hashes a tuple from its members' hashes and compares two tuples member by member, identity first, so
``("a", x) == ("a", x)`` holds for the very tensor ``x`` while tuples of two different tensors differ. The key
is therefore the tuple of its members' keys (constants, or the identity keys of tensors and objects made while
tracing): another tuple with the same members finds the same entry. A member that cannot be a key (a list: the
program's ``TypeError``; a value known only at run time) makes the tuple no key either, as in Python. Only plain
tuples: a named tuple's class could compare in Python. A plain frozenset holding tensors is keyed likewise, by
the set of its members' keys (``frozenset([x, y])`` finds ``frozenset([y, x])``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .mappings import KEY_MAKERS, DictVariable
from .sequences import TupleVariable
from .sets import SetVariable
from .value_keys import ValueKey

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator


def tuple_key(key: Variable, tx: InstructionTranslator) -> ValueKey | None:
    """The key of a plain tuple or frozenset some of whose members only the trace holds; None for anything else."""
    if isinstance(key, SetVariable) and key.frozen and key.python_type() is frozenset:
        return ValueKey(key, (frozenset, frozenset(key.layout)))
    if not isinstance(key, TupleVariable) or key.python_type() is not tuple:
        return None
    members = tuple(DictVariable.key_of(item, tx) for item in key.items)
    return ValueKey(key, (tuple, members))


KEY_MAKERS.append(tuple_key)
