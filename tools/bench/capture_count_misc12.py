"""Small programs in the manner of PyTorch's split test_misc.py (parts 5 to 8 and extra) and the last third of
test_functions.py, for ``capture_count.py --only misc12``: ``packaging.version`` comparisons, ``inspect``
signatures bound and their parameters, class ``__dict__`` read through the type's descriptor, pytree key paths
formatted and tree specs queried, frozen dataclasses as dict keys, imports that fail inside ``try``, list
iterators searched with ``in``, itertools helpers with user functions. Each is written afresh over one tensor
(``torch.arange(3.0)``).
"""

from __future__ import annotations

import collections
import dataclasses
import inspect
import itertools
import operator

import torch
from torch.utils import _pytree as pytree


# -- versions and inspect --------------------------------------------------------------------------------------
def c_m12_packaging_version_compare(x):
    from packaging import version

    if version.parse("2.3.1") >= version.parse("2.0.0"):
        return x + 1
    return x - 1


def c_m12_packaging_torch_version(x):
    from packaging import version

    newer = version.parse(torch.__version__) > version.parse("1.9")
    return x * 2 if newer else x


def _sig_target(a, b, *rest, c=10, d=11, **kw):
    return a


def c_m12_signature_bind_args(x):
    bound = inspect.signature(_sig_target).bind(1, 2, 3, d=12, e=15)
    bound.arguments["d"] = 13
    return x + bound.args[0], bound.args, bound.kwargs


def c_m12_signature_bind_apply_defaults(x):
    bound = inspect.signature(_sig_target).bind(4, 5)
    bound.apply_defaults()
    return x + bound.arguments["c"], tuple(bound.arguments)


def _annotated(a: torch.Tensor, b: int = 3) -> torch.Tensor:
    return a + b


def c_m12_signature_parameter_default(x):
    params = inspect.signature(_annotated).parameters
    if params["a"].default is inspect.Parameter.empty:
        return torch.sin(x + params["b"].default)
    return torch.cos(x)


def c_m12_signature_parameter_kinds(x):
    params = inspect.signature(_sig_target).parameters
    kinds = [p.kind == inspect.Parameter.VAR_POSITIONAL for p in params.values()]
    return x * sum(kinds), list(params)


class _WithParam:
    first = 1
    second = 2
    param = inspect.Parameter("x", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=7)


_dunder_dict = type.__dict__["__dict__"].__get__


def c_m12_type_dict_descriptor_len(x):
    d = _dunder_dict(_WithParam)
    return x + len([k for k in d if not k.startswith("_")])


def c_m12_type_dict_descriptor_param(x):
    p = _dunder_dict(_WithParam)["param"]
    return x + p.default, p.name


# -- pytree ------------------------------------------------------------------------------------------------------
def c_m12_pytree_key_path_fstring(x):
    path = (pytree.MappingKey("a"), pytree.SequenceKey(0))
    return x * 2, f"path={path}"


def c_m12_pytree_keystr(x):
    return x + 1, pytree.keystr((pytree.MappingKey("w"), pytree.SequenceKey(2)))


def c_m12_treespec_counts(x):
    flat, spec = pytree.tree_flatten({"a": x, "b": [x * 2, x * 3]})
    return sum(flat), spec.num_leaves, spec.num_nodes, spec.is_leaf()


def c_m12_tree_map_then_unflatten(x):
    flat, spec = pytree.tree_flatten((x, {"k": x + 1}))
    return pytree.tree_unflatten([t * 2 for t in flat], spec)


# -- dataclasses ----------------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class _Point:
    px: float
    py: float


@dataclasses.dataclass(frozen=True)
class _Box:
    corner: _Point
    w: int
    h: int = 2


def c_m12_frozen_dataclass_dict_key(x):
    p = _Point(1.5, 2.0)
    d = {p: 3}
    return x + p.px + d[_Point(1.5, 2.0)]


def c_m12_nested_frozen_dataclass_key(x):
    b = _Box(_Point(0.5, 1.0), 4)
    d = {b: 2}
    return x * d[b] + b.corner.py + b.h


def c_m12_frozen_dataclass_replace(x):
    b = dataclasses.replace(_Box(_Point(1.0, 1.0), 1), w=5)
    return x + b.w, dataclasses.astuple(b)


# -- iterators, imports, itertools --------------------------------------------------------------------------------
def c_m12_list_iterator_contains(x):
    it = iter(["mine", "other"])
    next(it)
    if "mine" in it:
        return x + 2
    return x + 1


def c_m12_failed_import_in_try(x):
    try:
        import loom_no_such_module_m12  # noqa: F401

        return x
    except ImportError:
        pass
    return x.sin()


def c_m12_failed_from_import_in_try(x):
    try:
        from torch import no_such_name_m12  # noqa: F401
    except ImportError as e:
        return x.cos(), type(e).__name__
    return x, None


def c_m12_listcomp_in_try(x):
    items = [x, None, x * 2]
    try:
        return [torch.sin(t) for t in items if t is not None]
    except Exception:
        return None


def c_m12_accumulate_user_fn(x):
    seen = []

    def step(a, b):
        seen.append(b)
        return a * len(seen) + b

    out = list(itertools.accumulate([x, x + 1, x + 2], step))
    return out, len(seen)


def c_m12_groupby_neg_key(x):
    groups = [(k, list(g)) for k, g in itertools.groupby([1, 2, -2, 3, -3, 0], key=operator.neg)]
    return x + len(groups), groups


def c_m12_tee_lists(x):
    a, b = itertools.tee([x, x + 1])
    return list(a), list(b)


def c_m12_storage_size(x):
    s = x.untyped_storage()
    return x + 1, s.size(), s.nbytes()


# -- pytree over mixed containers (after test_misc's pytree tests) ---------------------------------------------------
_Triple = collections.namedtuple("_Triple", ["a", "b", "c"])


def _mixed_tree(x):
    return {
        "a": [x, x - 1],
        "b": x + 2,
        "c": (x, 3.0, collections.deque([0.0, -x, 1, 2], maxlen=3)),
        "d": collections.OrderedDict({"e": torch.return_types.qr((2 * x, None)), "f": _Triple(x, x + 1, 7)}),
    }


def c_m12_pytree_leaves_mixed(x):
    return pytree.tree_leaves(_mixed_tree(x))


def c_m12_pytree_flatten_unflatten_mixed(x):
    leaves, spec = pytree.tree_flatten(_mixed_tree(x))
    return pytree.tree_unflatten([leaf * 2 if isinstance(leaf, torch.Tensor) else leaf for leaf in leaves], spec)


def c_m12_pytree_map_two_trees_reordered(x):
    left = collections.OrderedDict([("p", x), ("q", [x + 1, 2.0])])
    right = {"q": [x * 3, 4.0], "p": x - 1}
    return pytree.tree_map(lambda u, v: u + v, left, right)


def c_m12_pytree_map_defaultdict_order(x):
    tree = collections.defaultdict(int, {"b": x + 2, "a": x, "c": x - 1})
    mapped = pytree.tree_map(lambda t: t * 2, tree)
    return list(mapped.keys()), list(mapped.values()), type(mapped).__name__


def c_m12_pytree_map_only_tensors(x):
    tree = {"aa": ([x, "hi"], [x + 1]), "ab": [x * 2, 3]}
    return pytree.tree_map_only(torch.Tensor, lambda t: t.clone() + 1, tree)


def c_m12_pytree_nested_lists_clone(x):
    xs = [x, x + 1]
    flat, spec = pytree.tree_flatten((xs, {"k": xs}, [xs, xs]))
    return pytree.tree_unflatten([t.clone() for t in flat], spec)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_") and fn.__module__ == __name__]
