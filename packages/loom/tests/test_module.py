"""loom.compile(module): calls are compiled; state, attributes, modes and nn.Module methods pass through."""

import copy

import pytest
import torch

import loom
import loom_framehook as framehook
from loom.examples.models import TinyMLP


def make():
    model = TinyMLP(width=8, depth=2)
    return model, loom.compile(model, backend="eager")


def test_calls_are_compiled_and_match_eager():
    model, compiled = make()
    x = torch.randn(2, 8)
    torch.testing.assert_close(compiled(x), model(x))
    assert loom.stats()["frames_compiled"] == 1
    assert len(framehook.entries(TinyMLP.forward.__code__)) == 1
    torch.testing.assert_close(compiled.forward(x), model(x))  # forward() is compiled too: a cache hit
    assert loom.stats()["frames_compiled"] == 1 and loom.stats()["cache_hits"] == 1


def test_it_is_a_module_with_the_originals_state_and_no_prefix():
    model, compiled = make()
    assert isinstance(compiled, torch.nn.Module) and isinstance(compiled, loom.CompiledModule)
    assert compiled._orig_mod is model
    assert list(compiled.state_dict()) == list(model.state_dict())
    assert all(p is q for p, q in zip(compiled.parameters(), model.parameters()))
    assert [n for n, _ in compiled.named_parameters()] == [n for n, _ in model.named_parameters()]
    assert next(iter(compiled.modules())) is model
    assert list(compiled.children()) == list(model.children())
    assert "TinyMLP" in repr(compiled) and repr(compiled).startswith("CompiledModule(")


def test_load_state_dict_reaches_the_original():
    model, compiled = make()
    other = TinyMLP(width=8, depth=2)
    compiled.load_state_dict(other.state_dict())
    for p, q in zip(model.parameters(), other.parameters()):
        assert torch.equal(p, q)


def test_train_and_eval_switch_the_original_and_return_the_wrapper():
    model, compiled = make()
    assert compiled.eval() is compiled
    assert model.training is False and compiled.training is False
    assert all(not m.training for m in model.modules())
    assert compiled.train() is compiled
    assert model.training is True and compiled.training is True
    compiled.training = False  # plain attribute assignment goes to the original too
    assert model.training is False


def test_attributes_read_write_delete_on_the_original():
    model, compiled = make()
    assert compiled.layers is model.layers
    compiled.extra = 5
    assert model.extra == 5 and compiled.extra == 5
    del compiled.extra
    assert not hasattr(model, "extra")
    compiled.head = torch.nn.Linear(8, 2)  # a new submodule registers on the original
    assert "head.weight" in model.state_dict()
    assert "head" in dir(compiled)


def test_methods_returning_the_module_return_the_wrapper():
    model, compiled = make()
    assert compiled.to(torch.float64) is compiled
    assert model.layers[0].weight.dtype == torch.float64
    assert compiled.float() is compiled and model.norm.weight.dtype == torch.float32
    assert compiled.requires_grad_(False) is compiled
    assert not any(p.requires_grad for p in model.parameters())


def test_hooks_registered_through_the_wrapper_run_on_compiled_calls():
    model, compiled = make()
    calls = []
    handle = compiled.register_forward_hook(lambda module, args, out: calls.append(module))
    compiled(torch.randn(2, 8))
    assert calls == [model]
    handle.remove()
    compiled(torch.randn(2, 8))
    assert calls == [model]


def test_nested_in_a_container():
    model, compiled = make()
    seq = torch.nn.Sequential(compiled, torch.nn.ReLU())
    x = torch.randn(2, 8)
    torch.testing.assert_close(seq(x), torch.relu(model(x)))
    assert list(seq.state_dict()) == [f"0.{k}" for k in model.state_dict()]
    seq.double()  # parent _apply reaches the original's parameters through the wrapper
    assert model.layers[0].weight.dtype == torch.float64


def test_deepcopy_copies_the_original_and_keeps_the_settings():
    model, compiled = make()
    clone = copy.deepcopy(compiled)
    assert isinstance(clone, loom.CompiledModule) and clone._loom_compiler is compiled._loom_compiler
    assert clone._orig_mod is not model
    assert all(p is not q and torch.equal(p, q) for p, q in zip(clone.parameters(), model.parameters()))
    x = torch.randn(2, 8)
    torch.testing.assert_close(clone(x), model(x))


def test_compiling_a_compiled_module_again_wraps_the_original():
    model, compiled = make()
    again = loom.compile(compiled, backend="aot_eager")
    assert again._orig_mod is model
    assert again._loom_compiler is not compiled._loom_compiler


def test_a_torch_nn_container_is_compiled_although_it_is_library_code():
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    compiled = loom.compile(model, backend="eager")
    x = torch.randn(3, 4)
    torch.testing.assert_close(compiled(x), model(x))
    assert len(framehook.entries(torch.nn.Sequential.forward.__code__)) == 1
    assert loom.stats()["graphs"] == 1


def test_container_modules_keep_len_indexing_and_iteration():
    seq = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU())
    compiled = loom.compile(seq, backend="eager")
    assert len(compiled) == 2 and compiled[0] is seq[0] and list(compiled) == list(seq)
    assert seq[1] in list(compiled) and isinstance(compiled, loom.CompiledModule)
    compiled[1] = torch.nn.Tanh()  # item assignment reaches the original
    assert isinstance(seq[1], torch.nn.Tanh)
    assert len(copy.deepcopy(compiled)) == 2
    layer = loom.compile(torch.nn.Linear(2, 2), backend="eager")
    assert bool(layer)  # a module without __len__ stays truthy
    with pytest.raises(TypeError):
        len(layer)
