"""``with warnings.catch_warnings():`` blocks inside compiled code, for ``capture_count.py --only warnctx8``: the
block's entry, its ``simplefilter`` / ``filterwarnings`` / ``resetwarnings`` calls, the warnings made in it and its
exit are made after the graph in program order (one graph; torch.compile skips such a frame). A
``record=True`` block, a read of ``warnings.filters`` inside, a warning the filters raise and a break inside
the block break at the manager, and the rest runs as ordinary Python. Each is written afresh over one tensor.
"""

from __future__ import annotations

import warnings

import torch


@torch.compiler.disable
def _opaque(t):
    return t * 3


def c_warnctx8_ignore_all(x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warnings.warn("deprecated", stacklevel=1)
        y = x + 1
    return y * 2


def c_warnctx8_ignore_one_category(x):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=UserWarning)
        warnings.warn("hidden", stacklevel=1)
        warnings.warn("shown", FutureWarning, stacklevel=1)
        y = x + 1
    return y * 2


def c_warnctx8_action_argument(x):
    with warnings.catch_warnings(action="ignore", category=DeprecationWarning):
        warnings.warn("old", DeprecationWarning, stacklevel=1)
        y = x.sum()
    return y


def c_warnctx8_message_and_module(x):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*is deprecated", category=UserWarning, module=__name__)
        warnings.warn("f is deprecated", stacklevel=1)
        y = x.relu()
    return y


def c_warnctx8_nested_with_reset(x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warnings.warn("a", stacklevel=1)
        with warnings.catch_warnings():
            warnings.resetwarnings()
            warnings.simplefilter("ignore", RuntimeWarning)
            warnings.warn("b", RuntimeWarning, stacklevel=1)
            y = x * 2
        warnings.warn("c", stacklevel=1)
    return y + 1


def c_warnctx8_exception_caught(x):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            raise ValueError("stop")
    except ValueError:
        y = x + 1
    return y


def c_warnctx8_inside_a_helper(x):
    def helper(t):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            warnings.warn("helper", stacklevel=2)
            return t - 1

    return helper(x) * 2


def c_warnctx8_error_filter_raises(x):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = x + 1
        warnings.warn("raised", stacklevel=1)
    return y


def c_warnctx8_break_inside(x):
    y = x + 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = _opaque(y)
    return y * 2


def c_warnctx8_manager_made_before_a_break(x):
    quiet = warnings.catch_warnings(action="ignore")
    y = _opaque(x + 1)
    with quiet:
        warnings.warn("hidden", stacklevel=1)
        y = y + 1
    return y


def c_warnctx8_record_read(x):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        warnings.warn("r", stacklevel=1)
        y = x + len(w)
    return y


def c_warnctx8_reads_filters(x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        n = len(warnings.filters) > 0
    return x + n


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
