"""Runs ``capture_count``'s constructs under eager, loom and torch.compile and prints the table.

A construct's outcome is its result, the exception it raises, the state it leaves (the count of the class
``main`` is handed, ``capture_count.Registry``, which some constructs bump, and Python's RNG state) and the
text it prints to ``sys.stdout``.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import io
import logging
import random
import re
import warnings
from collections import Counter, deque

import torch

_COUNTED = type("NothingCounted", (), {"count": 0})


def _reset_state():
    _COUNTED.count = 0
    random.seed(1234)
    torch.manual_seed(1234)
    torch.set_grad_enabled(True)
    while torch._C._len_torch_function_stack():  # a mode torch.compile's run left pushed (extra_args push some)
        torch._C._pop_torch_function_stack()


def _torch_state():
    """Global state a construct must leave as eager does: grad mode, default dtype, the RNG, the
    torch-function mode stack (a mode left pushed is cleared here, so the next construct starts clean),
    and the process-wide switches a traced region could leave set (autocast, inference mode, functorch
    and forward-AD levels, dispatch modes, saved-tensor hooks, anomaly mode, warning filters)."""
    modes = []
    while torch._C._len_torch_function_stack():
        modes.append(type(torch._C._pop_torch_function_stack()).__name__)
    switches = (torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"), torch.is_autocast_cache_enabled(),
                torch.is_inference_mode_enabled(), torch._C._functorch.maybe_current_level(),
                torch.autograd.forward_ad._current_level, torch._C._len_torch_dispatch_stack(),
                torch._C._autograd._top_saved_tensors_default_hooks(True) is not None, torch.is_anomaly_enabled(),
                torch.are_deterministic_algorithms_enabled(), str(torch.get_default_device()),
                len(warnings.filters), logging.root.manager.disable)
    return torch.is_grad_enabled(), torch.get_default_dtype(), torch.get_rng_state().tolist(), modes, switches


def _arguments(fn, x):
    """``x``, then what the construct names in ``extra_args`` (iterators, parameters), made afresh."""
    return (x, *getattr(fn, "extra_args", tuple)())


#: a printed tensor's autograd node: a compiling backend's graph makes one node for the graph (``CompiledFunctionBackward``)
_GRAD_FN = re.compile(r"grad_fn=<\w+>")


def _outcome(fn, x, original=None):
    _reset_state()
    printed = io.StringIO()
    try:
        args = _arguments(original or fn, x)
        with contextlib.redirect_stdout(printed):
            result = [fn(*args) for _ in range(getattr(original or fn, "calls", 1))]  # same args on each call
        error = None
    except Exception as exc:
        result, error = None, (type(exc), exc.args)
    return result, error, (_COUNTED.count, random.getstate(), _torch_state(), _GRAD_FN.sub("grad_fn=<...>", printed.getvalue()))


def _same(a, b) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, torch.Tensor):
        return a.shape == b.shape and a.dtype == b.dtype and torch.allclose(a, b, equal_nan=True)
    if type(a).__module__ == "numpy" and hasattr(a, "shape"):  # ndarrays and numpy scalars: by value, dtype and shape
        return a.shape == b.shape and a.dtype == b.dtype and bool((a == b).all())
    if isinstance(a, (list, tuple, deque)):
        return len(a) == len(b) and all(_same(p, q) for p, q in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return a == b


_DYNAMIC = {}  # {"dynamic": True} under --dynamic: both compilers make sizes and ints symbolic from the start
_LOOM_BACKEND = ["eager"]  # --backend: loom's backend (torch.compile's column always uses eager)


def run_loom(fn, x):
    import loom

    expected = _outcome(fn, copy.deepcopy(x))
    loom.reset()
    # strict: an internal error raises (a wrong outcome here) instead of running the frame as is, unseen
    compiled = loom.compile(fn, backend=_LOOM_BACKEND[0], options={"strict": True}, **_DYNAMIC)
    actual = _outcome(compiled, copy.deepcopy(x), fn)
    correct = _same(actual[0], expected[0]) and actual[1] == expected[1] and actual[2] == expected[2]
    stats = loom.stats()
    return correct, stats["graphs"], stats["graph_breaks"]


def run_torch(fn, x):
    import torch._dynamo as dynamo

    dynamo.reset()
    _reset_state()
    try:
        args = _arguments(fn, copy.deepcopy(x))
        if getattr(fn, "calls", 1) > 1:  # explain compiles afresh on each call: count one compiled function's
            return _torch_calls(fn, args, fn.calls)
        if _DYNAMIC:  # explain takes no options: count the graphs one dynamic compiled function makes
            return _torch_calls(fn, args, 1)
        report = dynamo.explain(fn)(*args)
    except Exception:
        return None, None
    return report.graph_count, report.graph_break_count


def _torch_calls(fn, args, calls):
    from torch._dynamo.utils import counters
    graphs = []
    counters.clear()
    compiled = torch.compile(fn, backend=lambda gm, inputs: graphs.append(gm) or gm.forward, **_DYNAMIC)
    for _ in range(calls):
        compiled(*args)
    return len(graphs), sum(counters["graph_break"].values())


def main(constructs, counted) -> int:
    """Runs every construct; ``counted`` is the class whose ``count`` the constructs bump (part of their outcome)."""
    global _COUNTED
    _COUNTED = counted
    parser = argparse.ArgumentParser(description="capture_count: loom against eager and torch.compile")
    parser.add_argument("--no-torch", action="store_true", help="skip torch.compile's column")
    parser.add_argument("--only", metavar="AREA", help="run only capture_count_AREA.py's (and capture_count_AREA_*.py's) constructs")
    parser.add_argument("--dynamic", action="store_true", help="compile with dynamic=True (symbolic sizes and ints)")
    parser.add_argument("--backend", default="eager",
                        help="loom's backend (default eager; `c` or `aot_eager` check the backends on every program, "
                             "strict: a graph a backend refuses counts as differing from eager)")
    options = parser.parse_args()
    _LOOM_BACKEND[0] = options.backend
    _DYNAMIC.update({"dynamic": True} if options.dynamic else {})
    rows, clean, torch_clean, wrong = [], 0, 0, 0
    totals = Counter()
    if options.only:
        area = f"capture_count_{options.only}"  # with its parts: capture_count_<area>_<part>.py
        constructs = [fn for fn in constructs if fn.__module__ == area or fn.__module__.startswith(area + "_")]
    for fn in constructs:
        x = torch.arange(3.0)
        correct, graphs, breaks = run_loom(fn, x)
        t_graphs, t_breaks = (None, None) if options.no_torch else run_torch(fn, x)
        clean += graphs <= 1 and breaks == 0
        torch_clean += t_graphs is not None and t_graphs <= 1 and t_breaks == 0
        wrong += not correct
        totals.update(graphs=graphs, breaks=breaks, torch_graphs=max(t_graphs or 0, 0),
                      torch_breaks=max(t_breaks or 0, 0))
        rows.append((fn.__name__[2:], "yes" if correct else "NO", graphs, breaks, t_graphs, t_breaks))
    print(f"{'construct':28} {'eager?':>6} {'graphs':>6} {'breaks':>6} {'torch graphs':>12} {'torch breaks':>12}")
    for name, correct, graphs, breaks, t_graphs, t_breaks in rows:
        print(f"{name:28} {correct:>6} {graphs:>6} {breaks:>6} {t_graphs if t_graphs is not None else '-':>12} "
              f"{t_breaks if t_breaks is not None else '-':>12}")
    print(f"\n{len(rows)} constructs: loom 1 graph/0 breaks on {clean}, torch.compile on {torch_clean}; "
          f"loom differs from eager on {wrong}")
    print(f"graphs: loom {totals['graphs']}, torch.compile {totals['torch_graphs']}; "
          f"breaks: loom {totals['breaks']}, torch.compile {totals['torch_breaks']}")
    return 1 if wrong else 0
