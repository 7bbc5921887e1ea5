"""``match`` statements as CPython runs them (issue 29, CPython's test_patma in PyTorch's Dynamo suite):
a class pattern reads each attribute once (a ``__getattr__`` runs once, its AttributeError failing the
pattern), takes ``__match_args__`` (a tuple of strings) or, for ``int`` and the other self-matching builtins
and their subclasses, the subject itself; its TypeErrors (too many positional sub-patterns, an attribute
matched twice, a bad ``__match_args__``) carry CPython's messages, so a handler that formats them stays in
the graph. A mapping pattern looks its keys up with the subject's ``get`` (a ``collections.abc.Mapping``
class's is inlined), and a key checked twice raises ValueError when it comes. Whether a subject is a sequence
or a mapping is its class's flag, as CPython tests it: a class inheriting both kinds is the kind of its first
such base, and ``Sequence.register`` makes a class a sequence."""

import collections
import collections.abc

import torch
from breaks_harness import compare


class _P2:
    __match_args__ = ("x", "y")

    def __init__(self, x, y):
        self.x = x
        self.y = y


class _MyInt(int):
    pass


class _Spy:
    __match_args__ = ("a", "b")

    def __init__(self, seen):
        self.seen = seen

    def __getattr__(self, name):
        self.seen.append(name)
        if name == "a":
            return 1
        raise AttributeError(name)


def getattr_runs_once(x):
    seen = []
    match _Spy(seen):
        case _Spy(1, b):
            r = x + b
        case _Spy(a):
            r = x * (a + 1)
        case _:
            r = x
    return r, seen


def builtin_subclass_matches_itself(x):
    out = []
    for v in (_MyInt(5), 6):
        match v:
            case _MyInt(n):
                out.append(("mine", n))
            case int(n):
                out.append(("int", n))
    return x + len(out), out


def class_pattern_errors(x):
    class Listed:
        __match_args__ = ["a"]

    messages = []
    for subject, kind in ((_P2(1, 2), "many"), (_P2(1, 2), "twice"), (Listed(), "listed"), (3, "not a class")):
        try:
            match subject:
                case _P2(_, _, _) if kind == "many":
                    pass
                case _P2(_, x=_) if kind == "twice":
                    pass
                case Listed(_):
                    pass
                case len() if kind == "not a class":
                    pass
        except TypeError as e:
            messages.append(str(e))
    return x + len(messages), messages


class _Mapping(collections.abc.Mapping):
    def __init__(self, log, **kw):
        self._d = kw
        self.log = log

    def __getitem__(self, k):
        self.log.append(k)
        return self._d[k]

    def __iter__(self):
        return iter(self._d)

    def __len__(self):
        return len(self._d)


def abc_mapping_subject(x):
    log = []
    match _Mapping(log, w=2, h=3):
        case {"w": w, "z": z}:
            r = x + z
        case {"h": h, "w": w}:
            r = x * w + h
        case _:
            r = x
    return r, log


class _K:
    one = 1


class _Plain:
    pass


class _MapFirst(collections.UserDict, collections.abc.Sequence):
    pass


class _DictThenSeq(dict, collections.abc.Sequence, _Plain):
    pass


class _SeqFirst(collections.UserList, collections.abc.Mapping):
    pass


class _Registered:
    pass


collections.abc.Sequence.register(_Registered)


class _RegisteredChild(_Registered):
    pass


def _kind(v):
    match v:
        case [*_]:
            return "seq"
        case {}:
            return "map"
        case _:
            return "other"


def sequence_or_mapping_by_first_base(x):
    kinds = [_kind(v) for v in (_MapFirst(), _DictThenSeq(), _SeqFirst(), _Registered(), _RegisteredChild(), "s")]
    return x + len(kinds), kinds


def duplicate_keys_checked_as_they_come(x):
    out = []
    for d in ({1: 10, 2: 20}, {3: 30, 4: 40}):
        try:
            match d:
                case {_K.one: v, 1: w}:
                    out.append(v + w)
                case _:
                    out.append("none")  # key 1 missing: the pattern fails before the duplicate is seen
        except ValueError as e:
            out.append(str(e))
    return x + len(out), out


def _one_graph(fn):
    stats = compare(fn, torch.arange(3.0))
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), (fn.__name__, stats)


def test_a_class_pattern_reads_each_attribute_once():
    _one_graph(getattr_runs_once)


def test_a_subclass_of_a_self_matching_builtin_matches_itself():
    _one_graph(builtin_subclass_matches_itself)


def test_class_pattern_type_errors_carry_cpythons_messages():
    _one_graph(class_pattern_errors)


def test_a_mapping_class_subject_is_matched_through_its_get():
    _one_graph(abc_mapping_subject)


def test_sequence_or_mapping_is_the_flag_cpython_tests():
    _one_graph(sequence_or_mapping_by_first_base)


def test_a_duplicate_key_raises_only_when_reached():
    _one_graph(duplicate_keys_checked_as_they_come)
