"""The bytecode decoder: the direct path (3.11, 3.12, 3.13) must agree with the dis-based reference on real code."""

from __future__ import annotations

import collections
import email.message
import importlib
import sys
import types

import pytest
import torch

from loom_symbolic import instructions

pytestmark = pytest.mark.skipif(not instructions._FAST, reason="no direct decoder for this CPython version")


def _all_codes(code: types.CodeType):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _all_codes(const)


def _module_codes(*modules: types.ModuleType) -> list[types.CodeType]:
    codes = []
    for module in modules:
        for value in vars(module).values():
            functions = [value]
            if isinstance(value, type):
                functions = [v for v in vars(value).values() if isinstance(v, types.FunctionType)]
            for fn in functions:
                if isinstance(fn, types.FunctionType) and fn.__module__ == module.__name__:
                    codes.extend(_all_codes(fn.__code__))
    return codes


def _tricky_codes() -> list[types.CodeType]:
    """Code with EXTENDED_ARG (wide constants and long jumps), f-strings, backward jumps, handlers,
    and what 3.12 encodes differently: comparisons, method loads, super(), slices, inlined
    comprehensions, yield from."""
    many = "\n".join(f"    x{i} = {i}.5" for i in range(300))
    source = (
        f"def wide(a):\n{many}\n    return x299\n"
        "def loops(xs):\n    t = 0\n    for x in xs:\n        while x > 0:\n            x -= 1\n"
        "            if x == 3: break\n        t += x\n    return f'{t!r:>{4}}' + f'{t!s}' + f'{t!a}'\n"
        "def handlers(f):\n    try:\n        return f(k=1, *(), **{}) + f(1, k=2)\n    except (KeyError, ValueError) as e:\n"
        "        raise RuntimeError from e\n    finally:\n        print('x')\n"
        "def long_jump(c):\n    if c:\n" + "".join(f"        c = c + {i}\n" for i in range(200)) + "    return c\n"
        "class K(dict):\n    def m(self, a, b):\n        x = super().get(a) if a < b else super(K, self).keys\n"
        "        return x, a[1:b], [y for y in a if y is not None], {z: [lambda: z] for z in b}, a >= b\n"
        "def gen(xs):\n    yield from xs\n    y = yield 1\n    return +y\n"
    )
    module = compile(source, "<tricky>", "exec")
    return list(_all_codes(module))


def test_fast_decoder_matches_dis_on_real_code():
    modules = [importlib.import_module(name) for name in ("collections", "dis", "json.decoder", "email.message")]
    modules += [torch.nn.modules.module, torch.nn.functional, torch._tensor, collections, email.message]
    codes = _module_codes(*modules) + _tricky_codes()
    assert len(codes) > 500
    compared = 0
    for code in codes:
        fast, reference = instructions._decode_fast(code), instructions._decode_with_dis(code)
        assert fast == reference, code  # the instructions and the offset -> index map
        compared += len(fast[0])
    assert compared > 20_000


def test_extended_args_and_jumps_resolve_to_indexes():
    wide = next(c for c in _tricky_codes() if c.co_name == "long_jump")
    decoded = instructions.decode(wide)
    assert any(ins.opname == "EXTENDED_ARG" for ins in decoded.instructions)
    for ins in decoded.instructions:
        if ins.target is not None:
            destination = decoded.instructions[ins.target]
            assert destination.is_jump_target
            assert destination.offset == decoded.instructions[ins.target].offset
    jumps = [ins for ins in decoded.instructions if ins.opname.startswith("POP_JUMP")]
    assert jumps and all(ins.target is not None and ins.target > ins.index for ins in jumps)


def test_keyword_names_are_resolved():
    code = next(c for c in _tricky_codes() if c.co_name == "handlers")
    decoded = instructions.decode(code).instructions
    if sys.version_info >= (3, 13):  # no KW_NAMES: CALL_KW finds the names on the stack, from a LOAD_CONST
        kw = [decoded[ins.index - 1] for ins in decoded if ins.opname == "CALL_KW"]
        assert [ins.argval for ins in kw] == [("k",)]
        return
    kw = [ins for ins in decoded if ins.opname == "KW_NAMES"]
    assert [ins.argval for ins in kw] == [("k",)]
