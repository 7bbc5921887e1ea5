"""Logging calls and ``bytearray``, for ``capture_count.py --only logs8``: ``logging.getLogger(name)``, log
calls at levels the logger does not emit (nothing in the graph, as torch.compile has them) and at levels it
emits (made after the graph), and a ``bytearray`` made in the function (built, mutated, indexed, decoded,
returned). Each is written afresh over one tensor.
"""

from __future__ import annotations

import logging

_LOG = logging.getLogger("loom.bench.logs8")


# -- logging -------------------------------------------------------------------------------------------------
def c_logs8_get_logger_info(x):
    logging.getLogger("foo").info("hi %s", 1)
    return x + 1


def c_logs8_module_logger_debug_warning(x):
    _LOG.debug("d %s", 2)
    y = x * 2
    _LOG.warning("w %s", 3)
    return y + 1


def c_logs8_dunder_name_logger(x):
    log = logging.getLogger(__name__)
    log.debug("shape %s", x.shape)
    return x - 1


def c_logs8_quiet_call_with_a_tensor(x):
    y = x.sin()
    _LOG.debug("y is %s", y)
    _LOG.info("sum %s", y.sum())
    return y.cos()


def c_logs8_quiet_call_in_a_helper(x):
    def helper(t):
        _LOG.debug("inside %s", t)
        return t * 3

    return helper(x) + helper(x + 1)


def c_logs8_quiet_calls_in_a_loop(x):
    for i in range(3):
        _LOG.info("step %d: %s", i, x)
        x = x + i
    return x


def c_logs8_log_with_a_level(x):
    _LOG.log(logging.DEBUG, "lvl %d", 5)
    return x.relu()


def c_logs8_is_enabled_for(x):
    if _LOG.isEnabledFor(logging.DEBUG):
        x = x + 100
    return x * 2


def c_logs8_logger_identity(x):
    return x + int(logging.getLogger("loom.bench.logs8") is _LOG)


# -- bytearray ------------------------------------------------------------------------------------------------
def c_logs8_bytearray_append_len(x):
    b = bytearray(b"ab")
    b.append(99)
    return x + len(b)


def c_logs8_bytearray_sized_and_set(x):
    b = bytearray(3)
    b[0] = 1
    b.extend([5, 6])
    return x * b[0] + len(b), bytes(b)


def c_logs8_bytearray_iterate_and_decode(x):
    b = bytearray(b"hey")
    total = 0
    for c in b:
        total += c
    return x + total, b.decode()


def c_logs8_bytearray_returned(x):
    b = bytearray(b"ab")
    b += b"cd"
    b.reverse()
    return x - 1, b


def c_logs8_bytearray_bad_byte(x):
    b = bytearray()
    try:
        b.append(256)
    except ValueError:
        x = x + 1
    return x, b


def c_logs8_bytearray_compare_slice(x):
    b = bytearray(b"abcd")
    if b[1:3] == b"bc":
        x = x * 2
    return x + b.count(b"a")


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
