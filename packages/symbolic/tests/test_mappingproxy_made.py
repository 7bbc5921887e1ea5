"""``types.MappingProxyType(d)`` made in the trace over a dict the trace holds: a live, read-only view.

Reads through the proxy see later changes to the dict, stores into it raise TypeError as in Python, and
a proxy that leaves the frame views the very dict that leaves with it. It was a graph break ("creating
a mappingproxy object: constructing objects of this class is not modelled")."""

import collections
import sys
import types

import torch
from harness import check

from loom_symbolic import translate_function


def reads_see_later_changes(x):
    d = {"a": 1, "b": 2}
    proxy = types.MappingProxyType(d)
    before = (len(proxy), "c" in proxy, proxy.get("c", -1))
    d["c"] = 3
    del d["a"]
    after = (len(proxy), "c" in proxy, "a" in proxy, proxy["c"], proxy.get("c"), proxy.get("a", 0))
    return (x + proxy["b"], before, after, list(proxy), list(proxy.keys()), list(proxy.values()),
            list(proxy.items()), bool(proxy), dict(proxy), {**proxy})


def test_reads_see_later_changes():
    check(reads_see_later_changes, torch.ones(3))


def views_from_the_proxy_are_live(x):
    d = {"a": x}
    keys, values, items = types.MappingProxyType(d).keys(), types.MappingProxyType(d).values(), \
        types.MappingProxyType(d).items()
    d["b"] = x * 2
    return len(keys), "b" in keys, sum(values), [k for k, _ in items], ("a", x) in items


def test_views_from_the_proxy_are_live():
    check(views_from_the_proxy_are_live, torch.ones(3))


def the_catalogue_construct(x):
    d = {"a": 1, "b": 2}
    proxy = types.MappingProxyType(d)
    hits = ("a" in d.keys()) + (2 in d.values()) + (("b", 2) in d.items()) + ("a" in proxy) + ("z" in proxy)
    return x + hits


def test_the_catalogue_construct():
    check(the_catalogue_construct, torch.ones(3))


def stores_raise(x):
    proxy = types.MappingProxyType({"a": 1})
    errors = []
    for store in (lambda: proxy.__setitem__("a", 2), lambda: proxy.pop("a"), lambda: proxy.update(b=1),
                  lambda: proxy.clear(), lambda: proxy.setdefault("q", 1)):
        try:
            store()
        except (TypeError, AttributeError) as exc:
            errors.append(type(exc).__name__)
    try:
        proxy["a"] = 2
    except TypeError as exc:
        errors.append(str(exc))
    try:
        del proxy["a"]
    except TypeError as exc:
        errors.append(str(exc))
    return x + proxy["a"], errors


def test_stores_raise_as_in_python():
    check(stores_raise, torch.ones(3))


def inplace_or_raises(x):
    d = {"a": 1}
    proxy = types.MappingProxyType(d)
    merged = proxy
    try:
        merged |= {"b": 2}  # mappingproxy refuses |=: the proxied dict stays unchanged
    except TypeError as exc:
        message = str(exc)
    return x + len(d), message, type(merged).__name__, proxy | {"c": 3}, d


def test_inplace_or_raises_and_leaves_the_dict_alone():
    check(inplace_or_raises, torch.ones(3))


def proxy_leaves_the_frame(x):
    d = {"w": 2}
    proxy = types.MappingProxyType(d)
    return x * proxy["w"], proxy, d


def test_a_proxy_that_leaves_the_frame_views_the_returned_dict():
    translation = translate_function(proxy_leaves_the_frame, torch.ones(3))
    assert not translation.breaks, translation.dump()
    out, proxy, d = _run(proxy_leaves_the_frame, translation, torch.ones(3))
    assert type(proxy) is types.MappingProxyType
    d["later"] = 1
    assert dict(proxy) == {"w": 2, "later": 1}
    torch.testing.assert_close(out, torch.full((3,), 2.0))


def proxy_over_an_input(x, table):
    proxy = types.MappingProxyType(table)
    table["k"] = x.sum()
    return proxy["k"] + x, "k" in proxy, len(proxy)


def test_a_proxy_over_a_dict_from_the_frame_sees_its_changes():
    check(proxy_over_an_input, torch.ones(3), {"a": 1})


def kinds_of_dict(x):
    counts = collections.Counter("aab")
    dd = collections.defaultdict(int)
    od = collections.OrderedDict(z=1, y=2)
    pc, pd, po = types.MappingProxyType(counts), types.MappingProxyType(dd), types.MappingProxyType(od)
    missing = pd["new"]  # the proxy's [] is the mapping's: defaultdict's __missing__ runs and inserts
    return x + pc["a"] + missing, list(po), dict(dd), len(pd), pc.copy(), type(po.copy()).__name__


def test_kinds_of_dict():
    check(kinds_of_dict, torch.ones(3))


def not_a_mapping(x):
    try:
        types.MappingProxyType([1, 2])
    except TypeError as exc:
        return x + 1, str(exc)
    return x


def test_a_non_mapping_raises_type_error():
    check(not_a_mapping, torch.ones(3))


def _run(fn, translation, *args):
    import harness

    return harness.run_rewritten(fn, translation, args, {})


def live_across_a_break(x):
    d = {"a": 1}
    proxy = types.MappingProxyType(d)
    print("a graph break", file=sys.stdout)
    d["b"] = 2  # after the break: the rebuilt proxy must view the rebuilt dict
    return x + len(proxy), "b" in proxy, proxy is not d


def test_a_proxy_live_across_a_graph_break_still_views_its_dict(capsys):
    translation = translate_function(live_across_a_break, torch.ones(3))
    assert len(translation.breaks) == 1, translation.dump()
    out, has_b, distinct = _run(live_across_a_break, translation, torch.ones(3))
    torch.testing.assert_close(out, torch.full((3,), 3.0))
    assert has_b is True and distinct is True


def comparisons(x):
    d = {"a": 1}
    p = types.MappingProxyType(d)
    return x + 1, p == d, p == {"a": 1}, p != d, d == p, p == types.MappingProxyType({"a": 1}), p == {"b": 1}


def test_a_proxy_compares_as_its_dict():
    check(comparisons, torch.ones(3))


def nested_proxies(x):
    d = {"a": 1}
    p = types.MappingProxyType(types.MappingProxyType(d))
    d["b"] = 2
    return x + len(p), dict(p), "b" in p, p["b"], list(p.items())


def test_a_proxy_of_a_proxy_sees_the_dict():
    check(nested_proxies, torch.ones(3))


def dict_and_its_proxy_from_the_frame(x, d, p):
    before = len(p)
    d["b"] = x.sum()
    return x + 1, before, len(p), "b" in p, p["b"] + 1, sorted(p), list(p.keys())


def test_a_proxy_from_the_frame_sees_the_traces_changes_to_its_dict():
    # a wrong answer before: the proxy read the real dict, whose change is replayed after the graph
    def args():
        d = {"a": 1}
        return torch.ones(3), d, types.MappingProxyType(d)

    expected = dict_and_its_proxy_from_the_frame(*args())
    translation = translate_function(dict_and_its_proxy_from_the_frame, *args())
    assert not translation.breaks, translation.dump()
    actual = _run(dict_and_its_proxy_from_the_frame, translation, *args())
    assert repr(actual) == repr(expected)
