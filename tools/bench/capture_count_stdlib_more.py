"""More standard-library constructs for ``capture_count.py --only stdlib``, of the kinds PyTorch's
test/dynamo/test_functions.py, test_misc.py and test_repros.py exercise: itertools' filters and
``starmap``/``tee``/``cycle``, ``functools.cmp_to_key``/``partial``/``reduce`` with keywords,
``operator.methodcaller``, ``map``/``filter``/``zip(strict=True)``, ``math`` and number builtins,
string methods, ``dataclasses.fields``/``replace``, ``typing.NamedTuple``, ``collections.abc`` checks,
``enum.Flag``, ``types.SimpleNamespace`` and ``os.environ`` reads.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import functools
import itertools
import math
import operator
import os
import typing

import torch


def c_itertools_filters(x):
    nums = [1, 4, 2, 5, 3]
    taken = list(itertools.takewhile(lambda v: v < 5, nums))
    dropped = list(itertools.dropwhile(lambda v: v < 5, nums))
    kept = list(itertools.compress("abcde", [1, 0, 1, 0, 1]))
    odd_out = list(itertools.filterfalse(lambda v: v % 2, nums))
    return x + sum(taken), dropped, kept, odd_out


def c_itertools_starmap_tee_cycle(x):
    prods = list(itertools.starmap(operator.mul, [(1, 2), (3, 4)]))
    a, b = itertools.tee(iter([x, x + 1]))
    first = next(a)
    cyc = itertools.cycle("ab")
    letters = [next(cyc) for _ in range(3)]
    return first + sum(b) + prods[-1], letters


def _cmp(a, b):
    return (a[1] > b[1]) - (a[1] < b[1])


def c_functools_cmp_to_key_partial(x):
    pairs = sorted([("a", 3), ("b", 1), ("c", 2)], key=functools.cmp_to_key(_cmp))
    add_to = functools.partial(operator.add, x)
    pow2 = functools.partial(pow, exp=2)
    total = functools.reduce(lambda acc, v: acc + v, [1, 2, 3], 10)
    return add_to(pow2(3)) + total, pairs


def c_methodcaller_itemgetter(x):
    up = operator.methodcaller("upper")
    pick = operator.itemgetter(0, 2)
    get_t = operator.attrgetter("T")
    return get_t(x.reshape(1, 3)).sum() + len(up("ab")), pick("xyz")


def c_map_filter_zip_strict(x):
    doubled = list(map(lambda a, b: a + b, [1, 2], [10, 20]))
    truthy = list(filter(None, [0, 1, "", "a", None]))
    pairs = list(zip([x, x], [1, 2], strict=True))
    return pairs[1][0] + doubled[1], truthy


def c_zip_strict_mismatch(x):
    try:
        list(zip([1, 2], [1], strict=True))
    except ValueError as exc:
        return x + 1, str(exc)
    return x


def c_math_and_number_builtins(x):
    q, r = divmod(17, 5)
    vals = (math.floor(2.7), math.ceil(2.1), math.gcd(12, 18), math.isclose(0.1 + 0.2, 0.3), round(2.675, 2),
            pow(3, 4, 5), abs(-3), int("ff", 16), (255).to_bytes(2, "big"), int.from_bytes(b"\x01\x00", "big"),
            math.log2(8), math.comb(5, 2), math.isqrt(17), float("inf") > 1e308)
    return x * q + r, vals


def c_string_methods(x):
    name = "layer_3.weight"
    head, _, tail = name.partition(".")
    idx = int(head.rsplit("_", 1)[1])
    text = "{}-{:>4}-{:.2f}".format("a", 7, 1 / 3) + f"{idx:03d}"
    return x + idx, (tail.startswith("we"), name.replace("_", "-"), text, " a b ".split(), "ab".center(6, "*"),
                     ",".join(["x", "y"]), name.endswith((".bias", ".weight")), "Ab".swapcase(), "a1".isalnum())


@dataclasses.dataclass
class _Cfg:
    width: int = 4
    depth: int = 2
    tags: list = dataclasses.field(default_factory=list)


def c_dataclass_fields_replace(x):
    cfg = _Cfg(width=3)
    wider = dataclasses.replace(cfg, width=6)
    names = [f.name for f in dataclasses.fields(cfg)]
    return x * wider.width + cfg.depth, names, dataclasses.asdict(wider), dataclasses.is_dataclass(cfg)


class _Pair(typing.NamedTuple):
    left: torch.Tensor
    right: int = 1


def c_typing_namedtuple(x):
    p = _Pair(x)
    q = p._replace(right=3)
    left, right = q
    return left * right + p.right, q._fields, isinstance(q, tuple)


def c_collections_abc_checks(x):
    checks = (isinstance([], collections.abc.Sequence), isinstance({}, collections.abc.Mapping),
              isinstance((i for i in ()), collections.abc.Iterator), isinstance(x, collections.abc.Iterable),
              isinstance(len, collections.abc.Callable), isinstance("s", collections.abc.Hashable))
    return x + sum(checks), checks


class _Perm(enum.Flag):
    READ = enum.auto()
    WRITE = enum.auto()


def c_enum_flag_ops(x):
    both = _Perm.READ | _Perm.WRITE
    return x + (1 if _Perm.READ in both else 0), both.value, bool(both & _Perm.WRITE), _Perm.READ.name


def c_environ_reads(x):
    level = os.environ.get("LOOM_CAPTURE_COUNT_UNSET", "2")
    return x * int(level), "PATH" in os.environ


def c_sorted_with_tuples_and_none_key(x):
    rows = [(2, "b"), (1, "z"), (2, "a")]
    return x + rows.index((1, "z")), sorted(rows), max(rows, key=operator.itemgetter(1)), min(rows)


def c_all_any_generators_of_tensors(x, items):
    ok = all(t.shape == x.shape for t in items)
    some = any(t.dim() == 2 for t in items)
    return x + (1 if ok else 0) + (1 if some else 0)


c_all_any_generators_of_tensors.extra_args = lambda: ([torch.ones(3), torch.zeros(3)],)


def c_hash_id_callable(x):
    h = hash((1, "a")) == hash((1, "a"))
    return x + h, callable(len), callable(3), id(x) == id(x)


def c_chained_comparisons_and_ternaries(x):
    n = x.shape[0]
    size = "small" if 0 < n <= 4 else "big"
    return (x * 2 if n % 2 else x * 3), size, 1 < 2 < 3 > 0


CONSTRUCTS = [c_itertools_filters, c_itertools_starmap_tee_cycle, c_functools_cmp_to_key_partial,
              c_methodcaller_itemgetter, c_map_filter_zip_strict, c_zip_strict_mismatch,
              c_math_and_number_builtins, c_string_methods, c_dataclass_fields_replace, c_typing_namedtuple,
              c_collections_abc_checks, c_enum_flag_ops, c_environ_reads, c_sorted_with_tuples_and_none_key,
              c_all_any_generators_of_tensors, c_hash_id_callable, c_chained_comparisons_and_ternaries]
