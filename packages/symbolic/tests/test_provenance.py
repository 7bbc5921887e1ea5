"""``Translation.provenance``: the files whose code a translation ran and the library globals it took as fixed."""

import dataclasses
import types

import torch
from torch import nn

import loom_symbolic
from loom_symbolic.provenance import Provenance


def _helper(x):
    return torch.relu(x) + 1


def test_code_files_name_the_frame_and_each_inlined_function():
    layer = nn.Linear(4, 4)

    def f(x):
        return _helper(layer(x))

    t = loom_symbolic.translate_function(f, torch.randn(2, 4))
    assert t.captured
    files = t.provenance.code_files
    assert __file__ in files
    assert nn.Linear.forward.__code__.co_filename in files  # torch's own module code, inlined


def test_fixed_globals_list_the_unguarded_reads_of_library_code():
    layer = nn.Linear(4, 4)
    t = loom_symbolic.translate_function(lambda x: layer(x), torch.randn(2, 4))
    assert ("torch.nn.modules.linear", "F") in t.provenance.fixed_globals  # Linear.forward reads F.linear
    assert all(module != __name__ for module, _ in t.provenance.fixed_globals)  # the frame's globals are guarded



@dataclasses.dataclass
class _Pair:  # dataclasses makes its __init__ by exec: code from "<string>", no file to compare
    first: torch.Tensor
    second: torch.Tensor


def test_code_from_no_file_is_unfiled_and_pinned_by_the_guard_on_its_function():
    t = loom_symbolic.translate_function(lambda x: _Pair(x, x + 1).second, torch.randn(3))
    assert t.captured
    assert _Pair.__init__.__code__ in t.provenance.unfiled_code
    assert "<string>" not in t.provenance.code_files
    assert t.provenance.unpinned_code() == []  # inlined with an identity guard on its __code__


def test_unfiled_code_nothing_pins_is_listed():
    made = compile("def f(x):\n    def g():\n        return x\n    return g\n", "<generated>", "exec")
    outer = next(c for c in made.co_consts if isinstance(c, types.CodeType))
    nested = next(c for c in outer.co_consts if isinstance(c, types.CodeType))
    provenance = Provenance()
    provenance.note_code(outer)
    provenance.note_code(nested)
    assert set(provenance.unpinned_code()) == {outer, nested}
    provenance.pinned_code.add(outer)  # nested code is part of its parent's digest
    assert provenance.unpinned_code() == []
