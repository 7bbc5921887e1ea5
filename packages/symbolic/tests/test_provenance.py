"""``Translation.provenance``: the files whose code a translation ran and the library globals it took as fixed."""

import torch
from torch import nn

import loom_symbolic


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

