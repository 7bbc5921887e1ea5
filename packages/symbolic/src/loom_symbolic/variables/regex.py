"""Compiled regular expressions (``re.Pattern``) and their matches (``re.Match``), folded while tracing.

Both are immutable C objects whose methods are functions of their arguments alone, so a call on strings known
while tracing is made on the real object then (``fractions.Fraction("3/4")`` matches a module-level pattern,
``string.Template.substitute`` runs ``pattern.sub``): a ``Match`` is a :class:`FrozenObjectVariable` whose
``group()``, ``span()``, ``groupdict()`` fold too. ``sub``/``subn`` with a replacement function (what
``Template`` passes) call it on each match in order, traced, as C does; ``finditer`` gives an iterator over the
matches found then. ``scanner`` (a stateful object) is not folded. A pattern from the frame is guarded by identity.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..errors import Unsupported
from . import registry
from .base import Variable
from .builtins import FOLDED_LIBRARY_FUNCTIONS, builtin
from .constant import ConstantVariable, FrozenObjectVariable, wrap_frozen
from .iterators import SnapshotIterator
from .methods import MethodVariable
from .real_str_subclasses import real_text_object

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

#: Pattern methods folded on constant arguments (``finditer``: an iterator over the folded matches;
#: ``scanner``, whose object is stateful, is not folded).
_FOLDED = frozenset({"match", "search", "fullmatch", "findall", "split", "sub", "subn", "finditer"})


class MatchIterator(SnapshotIterator):
    """``pattern.finditer(string)`` on a string known while tracing: the matches, found then, one by one."""

    def python_type(self) -> type:
        return _CALLABLE_ITERATOR


_CALLABLE_ITERATOR = type(re.compile("").finditer(""))


class PatternVariable(FrozenObjectVariable):
    """A ``re.Pattern``: its attributes and :data:`_FOLDED` methods fold on constant arguments."""

    def call_method(self, tx: InstructionTranslator, name: str, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if name not in _FOLDED:
            raise Unsupported(f"call to Pattern.{name}", "its scanner object keeps a position, which is not modelled",
                              hint="it runs as ordinary Python")
        if name in ("sub", "subn") and args and not args[0].is_python_constant():
            return _sub_with_function(tx, self.value, name, args, kwargs)
        args = [_text_argument(tx, a) for a in args]  # a str subclass's instance: C reads its text
        if not all(a.is_python_constant() for a in [*args, *kwargs.values()]):
            raise Unsupported(f"call to Pattern.{name} with a value known only at run time", "not modelled")
        if name == "finditer":
            found = self.value.finditer(*(a.as_python_constant() for a in args),
                                        **{k: v.as_python_constant() for k, v in kwargs.items()})
            return MatchIterator([FrozenObjectVariable(m) for m in found])
        return super().call_method(tx, name, args, kwargs)

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name in _FOLDED or name == "scanner":
            return MethodVariable(self, name)  # its call comes back to call_method
        return super().var_getattr(tx, name)

    def describe(self) -> str:
        return f"re.compile({self.value.pattern!r})"


def _text_argument(tx: InstructionTranslator, value: Variable) -> Variable:
    """``value``, or the very str subclass instance it wraps as a folded argument (the match keeps it)."""
    real = real_text_object(tx, value)
    return value if real is None else FrozenObjectVariable(real)


def _sub_with_function(tx: InstructionTranslator, pattern: re.Pattern, name: str, args: list[Variable],
                       kwargs: dict[str, Variable]) -> Variable:
    """``pattern.sub(function, string, count=0)``: the matches C would find (``finditer`` walks them the same
    way, empty matches included), ``function`` called on each in order (traced), its strings put in place."""
    bound = dict(zip(("repl", "string", "count"), args)) | kwargs
    if set(bound) - {"repl", "string", "count"} or "string" not in bound:
        raise Unsupported(f"call to Pattern.{name} with these arguments", "not modelled")
    string, count = bound["string"], bound.get("count", ConstantVariable(0))
    if not (string.is_python_constant() and count.is_python_constant()):
        raise Unsupported(f"call to Pattern.{name} with a value known only at run time", "not modelled")
    text, limit = string.as_python_constant(), count.as_python_constant()
    if not isinstance(text, str) or type(limit) is not int:
        raise Unsupported(f"call to Pattern.{name} with these arguments", "not modelled")
    pieces: list[str] = []
    done, end = 0, 0
    for found in pattern.finditer(text):
        if limit and done == limit:
            break
        replaced = bound["repl"].call(tx, [FrozenObjectVariable(found)], {})
        value = replaced.as_python_constant() if replaced.is_python_constant() else None
        if not isinstance(value, str):
            raise Unsupported(f"call to Pattern.{name}", "the replacement function gave no string known while tracing")
        pieces += [text[end:found.start()], value]
        end, done = found.end(), done + 1
    result = "".join(pieces) + text[end:]
    return wrap_frozen((result, done) if name == "subn" else result)


def wrap_regex(tx: Any, value: Any, source: Any) -> Variable:
    """The variable of a pattern or match read from the frame (identity-guarded) or computed while tracing."""
    if source is not None and tx is not None:
        tx.output.guards.add("identity", source, value)
    return PatternVariable(value, source) if isinstance(value, re.Pattern) else FrozenObjectVariable(value, source)


def is_regex(value: Any) -> bool:
    """Whether ``value`` is a compiled pattern or a match."""
    return type(value) in (re.Pattern, re.Match)


#: ``re``'s functions of a pattern: each compiles it (``re.compile``, pure for a constant pattern and flags;
#: its cache is invisible) and calls the pattern's method of the same name with the other arguments.
_MODULE_FUNCTIONS = {re.compile: None, re.match: "match", re.search: "search", re.fullmatch: "fullmatch",
                     re.findall: "findall", re.split: "split", re.sub: "sub", re.subn: "subn"}


def _module_function(method: str | None):
    # the pattern first, the flags keyword-only or last positional (re.compile(p, flags), re.sub(p, r, s, count, flags))
    arity = {None: 1, "sub": 4, "subn": 4, "split": 3}.get(method, 2)

    def handler(tx, args, kwargs):
        flags = kwargs.get("flags", args[arity] if len(args) > arity else ConstantVariable(0))
        pattern = args[0] if args else kwargs.get("pattern")
        if method in ("sub", "subn", "split") and len(args) > arity - 1:
            return None  # count/maxsplit given by position: deprecated on 3.13, whose warning eager gives
        if pattern is None or not flags.is_python_constant():
            return None
        if isinstance(pattern, PatternVariable):
            compiled = pattern.value
        elif pattern.is_python_constant() and isinstance(pattern.as_python_constant(), (str, bytes)):
            try:
                compiled = re.compile(pattern.as_python_constant(), flags.as_python_constant())
            except (re.error, TypeError, ValueError):
                return None  # eager raises it, at the call
        else:
            return None
        found = PatternVariable(compiled)
        if method is None:
            return found
        rest = {k: v for k, v in kwargs.items() if k not in ("pattern", "flags")}
        return found.call_method(tx, method, list(args[1:arity]), rest)

    return handler


for _fn, _method in _MODULE_FUNCTIONS.items():
    FOLDED_LIBRARY_FUNCTIONS.add(_fn)
    builtin(_fn)(_module_function(_method))

# after every rule of wrap_rules (which none of these objects matches), before the fallback
registry.add_rule(1010, is_regex, wrap_regex)
for _cls in (re.Pattern, re.Match):
    registry.add_exact_type(_cls, wrap_regex)
