"""Hugging Face models through loom.compile: eager's answers, and the graphs a reader would expect.

Tiny configurations of real architectures. Each exercises what a model zoo does that toy models do
not: decorators that rewrite ``**kwargs``, configs with a ``__getattribute__``, ``ModelOutput``
dict subclasses indexed by position, activations stored as ``functools.partial``, attention that
reads ``os.environ``, caches whose ``__init__`` calls ``super()``.
"""

from __future__ import annotations

import pytest
import torch

import loom

transformers = pytest.importorskip("transformers")

SMALL = {"num_hidden_layers": 1, "hidden_size": 32, "intermediate_size": 64, "num_attention_heads": 4,
         "vocab_size": 100}


def _ids(*shape):
    return torch.randint(0, 100, shape)


def _first_tensor(output):
    while not isinstance(output, torch.Tensor):
        output = output[0]
    return output


# name -> (build model, build keyword inputs, (graphs, breaks) expected, or None where breaks remain)
MODELS = {
    "bert-keyword-arguments": (
        lambda: transformers.BertModel(transformers.BertConfig(**SMALL)),
        lambda: {"input_ids": _ids(2, 8), "attention_mask": torch.ones(2, 8, dtype=torch.long)}, (1, 0)),
    "llama": (
        lambda: transformers.LlamaForCausalLM(transformers.LlamaConfig(num_key_value_heads=2, **SMALL)),
        lambda: {"input_ids": _ids(2, 12)}, (1, 0)),
    "gemma": (
        lambda: transformers.GemmaForCausalLM(transformers.GemmaConfig(num_key_value_heads=2, head_dim=8, **SMALL)),
        lambda: {"input_ids": _ids(2, 12)}, (1, 0)),
    "falcon": (
        lambda: transformers.FalconForCausalLM(transformers.FalconConfig(
            num_hidden_layers=1, hidden_size=32, num_attention_heads=4, vocab_size=100)),
        lambda: {"input_ids": _ids(2, 12)}, (1, 0)),
    "deberta-v2": (
        lambda: transformers.DebertaV2Model(transformers.DebertaV2Config(**SMALL)),
        lambda: {"input_ids": _ids(2, 12)}, (1, 0)),
    "resnet": (
        lambda: transformers.ResNetModel(transformers.ResNetConfig(
            embedding_size=8, hidden_sizes=[8, 16], depths=[1, 1])),
        lambda: {"pixel_values": torch.randn(2, 3, 32, 32)}, (1, 0)),
    "bloom": (  # its GELU is a custom autograd Function
        lambda: transformers.BloomForCausalLM(transformers.BloomConfig(
            n_layer=1, hidden_size=32, n_head=4, vocab_size=100)),
        lambda: {"input_ids": _ids(2, 16)}, (1, 0)),
    "t5": (
        lambda: transformers.T5Model(transformers.T5Config(
            num_layers=1, d_model=32, d_ff=64, num_heads=4, d_kv=8, vocab_size=100)),
        lambda: {"input_ids": _ids(2, 10), "decoder_input_ids": _ids(2, 6)}, (1, 0)),
    "bart": (  # its decoder's cache deep-copies the config, then renames keys with delattr/setattr
        lambda: transformers.BartModel(transformers.BartConfig(
            encoder_layers=1, decoder_layers=1, d_model=32, encoder_ffn_dim=64, decoder_ffn_dim=64,
            encoder_attention_heads=4, decoder_attention_heads=4, vocab_size=100)),
        lambda: {"input_ids": _ids(2, 16)}, (1, 0)),
}


@pytest.mark.parametrize("name", list(MODELS))
def test_huggingface_model_matches_eager(name):
    make_model, make_inputs, expected_counts = MODELS[name]
    torch.manual_seed(0)
    model = make_model().eval()
    inputs = make_inputs()
    compiled = loom.compile(model, backend="eager")
    with torch.no_grad():
        expected = _first_tensor(model(**inputs))
        for _ in range(2):
            torch.testing.assert_close(_first_tensor(compiled(**inputs)), expected)
    stats = loom.stats()
    assert stats["cache_hits"] >= 1, stats
    assert stats["recompiles"] == 0, stats  # every guard held on the identical second call
    if expected_counts is not None:
        assert (stats["graphs"], stats["graph_breaks"]) == expected_counts, stats


def test_assigning_a_model_output_attribute_updates_its_item():
    """CLIP sets ``text_outputs.pooler_output`` to the projection; ``ModelOutput.__setattr__`` updates the
    item too, through a set comprehension that graph breaks resume (``output_hidden_states`` breaks)."""
    model = transformers.CLIPModel(transformers.CLIPConfig(
        text_config=dict(SMALL, max_position_embeddings=16), vision_config=dict(SMALL, image_size=16, patch_size=4),
        projection_dim=8)).eval()
    inputs = {"input_ids": _ids(2, 6), "pixel_values": torch.randn(2, 3, 16, 16), "output_hidden_states": True}
    with torch.no_grad():
        expected = model(**inputs)
        actual = loom.compile(model, backend="eager")(**inputs)
    for part in ("text_model_output", "vision_model_output"):
        assert actual[part]["pooler_output"].shape == (2, 8)
        torch.testing.assert_close(actual[part]["pooler_output"], expected[part]["pooler_output"])
