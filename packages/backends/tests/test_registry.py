"""The registry: register/get/names, the built-in names, and every error it raises."""

from __future__ import annotations

import subprocess
import sys

import pytest

import loom_backends
from loom_backends import UnknownBackendError


def test_builtin_backends_are_registered():
    assert {"eager", "aot_eager", "triton"} <= set(loom_backends.names())
    assert loom_backends.names() == sorted(loom_backends.names())


def test_register_get_and_unregister_roundtrip():
    @loom_backends.register("test_identity")
    def identity(gm, example_inputs):
        return gm.forward

    try:
        assert loom_backends.get("test_identity") is identity
        assert "test_identity" in loom_backends.names()
        # the decorator returns the function unchanged, and registering it again is harmless
        assert loom_backends.register("test_identity")(identity) is identity
    finally:
        loom_backends.unregister("test_identity")
    assert "test_identity" not in loom_backends.names()


def test_unknown_name_lists_the_known_ones():
    with pytest.raises(UnknownBackendError) as info:
        loom_backends.get("no_such_backend")
    err = info.value
    assert isinstance(err, KeyError)
    assert err.name == "no_such_backend"
    assert err.known == loom_backends.names()
    message = str(err)
    assert "no_such_backend" in message
    for name in ("eager", "aot_eager", "triton"):
        assert name in message


@pytest.mark.parametrize("bad", [None, 3, b"eager", ["eager"]])
def test_non_string_names_raise_type_error(bad):
    with pytest.raises(TypeError):
        loom_backends.get(bad)
    with pytest.raises(TypeError):
        loom_backends.register(bad)


@pytest.mark.parametrize("bad", ["", " eager", "eager\n"])
def test_malformed_names_raise_value_error(bad):
    with pytest.raises(ValueError):
        loom_backends.register(bad)


def test_registering_a_non_callable_raises_type_error():
    with pytest.raises(TypeError):
        loom_backends.register("test_not_callable")(42)
    assert "test_not_callable" not in loom_backends.names()


def test_taking_a_name_twice_needs_replace():
    def first(gm, example_inputs):
        return gm.forward

    def second(gm, example_inputs):
        return gm.forward

    loom_backends.register("test_twice")(first)
    try:
        with pytest.raises(ValueError, match="already registered"):
            loom_backends.register("test_twice")(second)
        assert loom_backends.get("test_twice") is first
        loom_backends.register("test_twice", replace=True)(second)
        assert loom_backends.get("test_twice") is second
    finally:
        loom_backends.unregister("test_twice")
    with pytest.raises(UnknownBackendError):
        loom_backends.unregister("test_twice")


@pytest.mark.parametrize("name", ["eager", "aot_eager", "triton"])
def test_backends_check_their_arguments(name):
    import torch

    gm = torch.fx.symbolic_trace(lambda x: (x + 1,))
    with pytest.raises(TypeError):
        loom_backends.get(name)(lambda x: x, [torch.ones(2)])
    with pytest.raises(TypeError):
        loom_backends.get(name)(gm, torch.ones(2))
    with pytest.raises(TypeError):
        loom_backends.get(name)(gm, [])  # one placeholder, no example input


def test_import_is_light():
    code = (
        "import sys, loom_backends\n"
        "heavy = [m for m in ('torch', 'triton', 'torch._dynamo', 'torch._inductor', 'torch._functorch.aot_autograd')"
        " if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""
