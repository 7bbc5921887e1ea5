"""Class patterns that ask ``isinstance`` (CPython's test_patma TestTypeErrors as PyTorch's Dynamo suite runs it,
``test/dynamo/cpython/3_13/``), for ``capture_count.py --only grammar14``: a Protocol that is not
runtime-checkable (eager's TypeError), runtime-checkable ones of data members and of methods, and a metaclass
writing ``__instancecheck__``.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable


class _P(Protocol): ...


@runtime_checkable
class _HasXY(Protocol):
    x: int
    y: int


@runtime_checkable
class _Closeable(Protocol):
    def close(self): ...


class _A:
    x = 1
    y = 2


class _F:
    def close(self):
        return 5


class _B:
    def __init__(self):
        self.x = 1


def c_grammar14_check_protocol_members_on_instances(x):
    out = []
    for v in (_A(), _B(), 3, "s"):
        match v:
            case _HasXY(x=a, y=b):
                out.append(a + b)
            case _:
                out.append(0)
    return x + sum(out), out, isinstance(_B(), _HasXY)


def c_grammar14_check_regular_protocol(x):
    try:
        match 1:
            case _P():
                r = "matched"
    except TypeError as e:
        r = str(e)
    return x + 1, r


def c_grammar14_check_runtime_protocol_data(x):
    out = []
    for v in (_A(), 3):
        match v:
            case _HasXY(x=a, y=b):
                out.append(a + b)
            case _:
                out.append(0)
    return x + sum(out), out


def c_grammar14_check_runtime_protocol_method(x):
    match _F():
        case _Closeable():
            return x + _F().close()
    return x


def c_grammar14_check_abc_instancecheck(x):
    class Meta(type):
        def __instancecheck__(cls, inst):
            return isinstance(inst, int) and inst > 5

    class Big(metaclass=Meta):
        pass

    out = []
    for v in (3, 10):
        match v:
            case Big():
                out.append("big")
            case _:
                out.append("small")
    return x + len(out), out


CONSTRUCTS = [c_grammar14_check_protocol_members_on_instances, c_grammar14_check_regular_protocol, c_grammar14_check_runtime_protocol_data,
              c_grammar14_check_runtime_protocol_method, c_grammar14_check_abc_instancecheck]
