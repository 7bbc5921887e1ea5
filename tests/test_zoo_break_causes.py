"""Break causes the model zoo showed (tests/test_model_zoo.py), each as a small program that needs no model
library, so they run on every CPython: a relative import inside a function (diffusers' ``apply_lora_scale``)
and the truth of a module (``if self.conv_norm_out:``)."""

from __future__ import annotations

import sys
import textwrap

import pytest
import torch
from breaks_harness import compare

import loom

_PACKAGE = {
    "__init__.py": "FLAG = 2\n",
    "helpers.py": "def scale(x):\n    return x * 3\n",
    "later.py": "VALUE = 5\n",
    "inner/__init__.py": "def deeper(x):\n    from .. import FLAG\n    return x - FLAG\n",
    "layers.py": textwrap.dedent("""
        import functools


        def with_flag(fn):
            @functools.wraps(fn)
            def wrapper(x):
                from . import FLAG
                from .helpers import scale
                from .inner import deeper
                return fn(x) * FLAG + scale(x) + deeper(x)
            return wrapper


        @with_flag
        def double(x):
            return x * 2


        def not_imported_yet(x):
            from .later import VALUE
            return x + VALUE
    """),
}


@pytest.fixture
def zoo_pkg(tmp_path, monkeypatch):
    """A package ``zoo_pkg`` on sys.path, imported; its modules are forgotten afterwards."""
    root = tmp_path / "zoo_pkg"
    (root / "inner").mkdir(parents=True)
    for name, text in _PACKAGE.items():
        (root / name).write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    import zoo_pkg.helpers
    import zoo_pkg.inner
    import zoo_pkg.layers  # noqa: F401
    yield sys.modules["zoo_pkg"]
    for name in [n for n in sys.modules if n == "zoo_pkg" or n.startswith("zoo_pkg.")]:
        del sys.modules[name]


def test_relative_import_inside_a_function_is_captured(zoo_pkg):
    stats = compare(zoo_pkg.layers.double, torch.ones(3))
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats


def test_a_member_read_through_a_relative_import_is_guarded(zoo_pkg):
    compiled = loom.compile(zoo_pkg.layers.double, backend="eager")
    x = torch.ones(3)
    torch.testing.assert_close(compiled(x), x * 2 * 2 + x * 3 + x - 2)
    zoo_pkg.FLAG = 10
    torch.testing.assert_close(compiled(x), x * 2 * 10 + x * 3 + x - 10)
    assert loom.stats()["recompiles"] == 1


def test_relative_import_of_a_submodule_not_imported_yet_runs_as_python(zoo_pkg):
    # Importing it runs its code: a break naming the import, and the module is imported as eager would.
    report = loom.explain(zoo_pkg.layers.not_imported_yet)(torch.ones(2))
    torch.testing.assert_close(report.result, torch.ones(2) + 5)
    assert report.break_count == 1
    assert "zoo_pkg.later" in report.breaks[0].what
    assert "zoo_pkg.later" in sys.modules


class _Truthy(torch.nn.Module):
    def __init__(self, on):
        super().__init__()
        self.on = on

    def __bool__(self):
        return self.on


class _Holder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = torch.nn.GroupNorm(2, 4)
        self.empty = torch.nn.ModuleList()
        self.full = torch.nn.Sequential(torch.nn.Identity())
        self.switch_on = _Truthy(True)
        self.switch_off = _Truthy(False)
        self.nothing = None

    def forward(self, x):
        if self.norm:
            x = self.norm(x)
        if self.empty:
            x = x * 100
        if self.full:
            x = x + 1
        if self.switch_on:
            x = x * 2
        if self.switch_off:
            x = x * 1000
        if self.nothing:
            x = x - 7
        return x


def test_truth_of_modules_is_captured():
    model = _Holder()
    x = torch.randn(2, 4, 3)
    expected = model(x)
    compiled = loom.compile(model, backend="eager")
    torch.testing.assert_close(compiled(x), expected)
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats
    # The container's truth is its length: a module appended later recompiles and changes the answer.
    model.empty.append(torch.nn.Identity())
    torch.testing.assert_close(compiled(x), model(x))
    assert loom.stats()["recompiles"] == 1


class _Blocks(list):
    """A list subclass with a Python method and an attribute, keeping list's special methods."""

    kind = "blocks"

    def extend_twice(self, items):
        super().extend(items)
        self.extend(items)
        return len(self)


def _iterate_and_extend_list_subclass(x, blocks):
    blocks.extend([3, 4])
    blocks.append(5)
    n = blocks.extend_twice([1])
    total = 0
    for value in blocks:
        total += value
    return x * total + n + len(blocks[1:]) + (blocks.kind == "blocks"), type(blocks[:2]).__name__


def test_a_list_subclass_from_the_frame_is_iterated_and_extended():
    stats = compare(_iterate_and_extend_list_subclass, torch.ones(2), _Blocks([1, 2]))
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats


class _Doubling(list):
    def __getitem__(self, index):
        return super().__getitem__(index) * 2

    def __iter__(self):
        return iter([v * 2 for v in super().__iter__()])


def _read_overriding_list_subclass(x, values):
    total = 0
    for value in values:
        total += value
    return x + total + values[0]


def test_a_list_subclass_overriding_its_protocol_keeps_its_behaviour():
    compare(_read_overriding_list_subclass, torch.ones(2), _Doubling([1, 2]))


def _pad_to_windows(x, window=4):
    # Swin's shifted windows: pad amounts computed from the sizes
    height, width = x.shape[-2:]
    pad_right = (window - width % window) % window
    pad_bottom = (window - height % window) % window
    return torch.nn.functional.pad(x, (0, pad_right, 0, pad_bottom)) * 2


def test_pad_with_amounts_computed_from_symbolic_sizes():
    compiled = loom.compile(_pad_to_windows, backend="eager", dynamic=True)
    for shape in [(1, 3, 6, 6), (1, 3, 7, 9), (1, 3, 10, 5), (1, 3, 10, 5)]:
        x = torch.randn(shape)
        torch.testing.assert_close(compiled(x), _pad_to_windows(x))
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"], stats["recompiles"]) == (1, 0, 0), stats
