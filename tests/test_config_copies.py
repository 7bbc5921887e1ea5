"""Configs copied and edited inside compiled code (issue 20: BART's and T5's ``get_text_config``):
``copy.deepcopy`` of a plain object, ``delattr``/``setattr`` on the copy, a closure in the copying
function, functions reached from a dict under an object key."""

from __future__ import annotations

import copy
import typing

import torch
from breaks_harness import compare

import loom


def _validate_int(name, value):
    if not isinstance(value, int):
        raise TypeError(name)


VALIDATORS = {typing.Union: _validate_int}  # an object key: the item has no printable source


class Config:
    def __init__(self):
        self.encoder_layers = 2
        self.decoder_layers = 3
        self.id2label = {0: "a", 1: "b"}
        self.sizes = (4, (5, 6))

    def __setattr__(self, key, value):
        VALIDATORS[typing.Union](key, 1 if key.endswith("layers") else 0)
        super().__setattr__(key, value)

    def to_dict(self):
        output = copy.deepcopy(self.__dict__)

        def to_list(value):
            return [to_list(v) for v in value] if isinstance(value, tuple) else value

        for key, value in output.items():
            output[key] = to_list(value)
        return output

    def decoder_view(self):
        view = copy.deepcopy(self)
        for key in view.to_dict():
            if key.startswith("decoder"):
                value = getattr(view, key)
                delattr(view, key)
                setattr(view, "num_" + key[len("decoder_"):], value)
        return view


CONFIG = Config()


def uses_a_decoder_view(x):
    view = CONFIG.decoder_view()
    return x * view.num_layers + len(view.to_dict()["sizes"][1]), view.id2label is not CONFIG.id2label


def test_a_deep_copy_edited_with_delattr_and_setattr_compiles_into_one_graph():
    stats = compare(uses_a_decoder_view, torch.ones(2))
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats
    assert vars(CONFIG).keys() == {"encoder_layers", "decoder_layers", "id2label", "sizes"}  # the original is intact


def test_a_copy_returned_from_the_compiled_function_is_a_new_object_with_the_edits():
    compiled = loom.compile(lambda x: (x + 1, CONFIG.decoder_view()), backend="eager")
    for _ in range(2):
        _, view = compiled(torch.ones(1))
        assert type(view) is Config and view is not CONFIG
        assert vars(view) == {"encoder_layers": 2, "id2label": {0: "a", 1: "b"}, "sizes": (4, (5, 6)), "num_layers": 3}
        assert view.id2label is not CONFIG.id2label
    assert loom.stats()["graph_breaks"] == 0


def test_a_changed_config_is_seen_by_the_next_call():
    compiled = loom.compile(uses_a_decoder_view, backend="eager")
    torch.testing.assert_close(compiled(torch.ones(2))[0], torch.full((2,), 5.0))
    CONFIG.decoder_layers = 7
    try:
        torch.testing.assert_close(compiled(torch.ones(2))[0], torch.full((2,), 9.0))
    finally:
        CONFIG.decoder_layers = 3
