"""Which code loom compiles: user code (this file, loom's examples, installed model libraries), not libraries."""

import json
import os

import torch

import loom
from loom import skipfiles
from loom.examples import models


def code_at(filename):
    return compile("def f():\n    pass\n", filename, "exec").co_consts[0]


def test_user_code_is_compiled():
    assert not skipfiles.is_library_code(test_user_code_is_compiled.__code__)
    assert not skipfiles.is_library_code(models.sin_plus_one.__code__)  # loom's examples are user code
    assert not skipfiles.is_library_code(code_at("<string>"), {"__name__": "__main__"})  # python -c
    assert not skipfiles.is_library_code(code_at("<string>"), vars(models))  # exec'd in a user module


def test_code_libraries_generate_with_exec_is_skipped():
    import collections

    point = collections.namedtuple("Point", "x y")
    assert skipfiles.is_library_code(point.__new__.__code__, point.__new__.__globals__)
    assert skipfiles.is_library_code(code_at("<string>"))  # globals unknown: not compiled


def test_libraries_are_skipped():
    assert skipfiles.is_library_code(json.dumps.__code__)
    assert skipfiles.is_library_code(torch.nn.Module.__call__.__code__)
    assert skipfiles.is_library_code(loom.compile.__code__)
    assert skipfiles.is_library_code(code_at("<frozen importlib._bootstrap>"))
    assert skipfiles.is_library_code(code_at("<eval_with_key>.3"))


def test_installed_model_libraries_are_user_code():
    import transformers

    code = transformers.GPT2Model.forward.__code__
    assert not skipfiles.is_library_code(code)
    # ... even though they live in site-packages next to skipped libraries
    assert code.co_filename.startswith(os.path.dirname(os.path.dirname(torch.__file__)) + os.sep)
