"""The C toolchain: build, disk cache shared by processes, load, and every way it can be unavailable."""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path

import pytest

from loom_backends import CompilerWarning, c_toolchain
from loom_backends.c_toolchain import ToolchainUnavailable

pytestmark = pytest.mark.skipif(
    sys.platform == "win32" or c_toolchain.shutil.which("cc") is None, reason="needs a POSIX C compiler"
)


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch) -> Path:
    """Each test gets its own cache directory and the default compiler."""
    monkeypatch.setenv("LOOM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("CC", raising=False)
    return tmp_path / "cache" / "c"


def _unique(tmp_path: Path, body: str) -> str:
    # The in-process memo is keyed by source: a comment keeps each test's source its own.
    return f"/* {tmp_path.name} */\n{body}\n"


def _script(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / name
    path.write_text("#!/bin/sh\n" + textwrap.dedent(body))
    path.chmod(0o755)
    return path


def _rejecting_cc(tmp_path: Path, name: str, flag: str) -> Path:
    """A compiler script that fails the way a compiler lacking ``flag`` does, and is ``cc`` otherwise."""
    return _script(tmp_path, name, f"""\
        for arg in "$@"; do
          if [ "$arg" = "{flag}" ]; then echo "error: unsupported option '{flag}'" >&2; exit 1; fi
        done
        exec cc "$@"
    """)


def _run_child(code: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)], env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def _child_result(child: subprocess.Popen) -> dict:
    out, err = child.communicate(timeout=120)
    assert child.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def test_a_c_function_loads_and_returns_the_right_value(tmp_path):
    lib = c_toolchain.load_library(_unique(tmp_path, "double scale(double x, int n) { return x * n + 0.5; }"))
    lib.scale.restype = ctypes.c_double
    lib.scale.argtypes = [ctypes.c_double, ctypes.c_int]
    assert lib.scale(1.5, 4) == 6.5


def test_openmp_and_vector_math_link(tmp_path):
    source = _unique(tmp_path, textwrap.dedent("""
        #include <math.h>
        #include <omp.h>
        #pragma omp declare simd
        float expf(float);
        int threads(void) { int n = 0;
        #pragma omp parallel num_threads(2)
        {
        #pragma omp atomic
            n++;
        }
        return n; }
        void exps(float *out, const float *in, long n) {
        #pragma omp simd
            for (long i = 0; i < n; i++) out[i] = expf(in[i]);
        }
    """))
    lib = c_toolchain.load_library(source)
    assert lib.threads() == 2
    values = (ctypes.c_float * 16)(*[i / 4 for i in range(16)])
    out = (ctypes.c_float * 16)()
    lib.exps(out, values, ctypes.c_long(16))
    import math

    assert all(abs(out[i] - math.exp(i / 4)) <= 1e-6 * math.exp(i / 4) for i in range(16))


def test_load_is_memoised_and_extra_flags_are_part_of_the_key(tmp_path, cache):
    source = _unique(tmp_path, "int value(void) { return VALUE; }")
    first = c_toolchain.load_library(source, extra_flags=["-DVALUE=3"])
    count = c_toolchain.compiler_invocations()
    assert c_toolchain.load_library(source, extra_flags=["-DVALUE=3"]) is first
    assert c_toolchain.compiler_invocations() == count
    assert c_toolchain.load_library(source, extra_flags=["-DVALUE=7"]).value() == 7
    assert first.value() == 3
    assert len(list(cache.glob("*.so"))) == 2
    assert {p.read_text() for p in cache.glob("*.c")} == {source}  # the source is kept beside the object


def test_a_second_process_compiles_nothing(tmp_path):
    source = _unique(tmp_path, "int answer(void) { return 42; }")
    path = c_toolchain.build_library(source)
    child = _run_child(f"""
        import json
        from loom_backends import c_toolchain
        lib = c_toolchain.load_library({source!r})
        print(json.dumps({{"answer": lib.answer(), "compiles": c_toolchain.compiler_invocations(),
                          "path": str(c_toolchain.build_library({source!r}))}}))
    """)
    result = _child_result(child)
    assert result == {"answer": 42, "compiles": 0, "path": str(path)}


def test_a_damaged_cached_object_is_rebuilt(tmp_path):
    source = _unique(tmp_path, "int answer(void) { return 7; }")
    path = c_toolchain.build_library(source)
    path.write_bytes(b"not an ELF file")
    count = c_toolchain.compiler_invocations()
    assert c_toolchain.load_library(source).answer() == 7
    assert c_toolchain.compiler_invocations() == count + 1


def test_a_missing_compiler_is_named(tmp_path, monkeypatch):
    missing = tmp_path / "no-such-cc"
    monkeypatch.setenv("CC", str(missing))
    with pytest.raises(ToolchainUnavailable) as info:
        c_toolchain.build_library(_unique(tmp_path, "int f(void) { return 1; }"))
    assert info.value.cause == c_toolchain.NO_COMPILER
    assert "no C compiler found" in info.value.reason and str(missing) in info.value.reason


def test_a_failing_compiler_is_named(tmp_path, monkeypatch, cache):
    failing = _script(tmp_path, "failing-cc", "exit 1\n")
    monkeypatch.setenv("CC", str(failing))
    with pytest.raises(ToolchainUnavailable) as info:
        c_toolchain.build_library(_unique(tmp_path, "int f(void) { return 1; }"))
    assert info.value.cause == c_toolchain.COMPILER_FAILS
    assert "fails on a trivial file" in info.value.reason and "failing-cc" in info.value.reason
    assert not list(cache.glob("*.so")) and not list(cache.glob(".*"))  # nothing half-written left
    # The verdict is remembered for the process: the same exception, no second probe.
    count = c_toolchain.compiler_invocations()
    with pytest.raises(ToolchainUnavailable, match="fails on a trivial file"):
        c_toolchain.build_library(_unique(tmp_path, "int g(void) { return 2; }"))
    assert c_toolchain.compiler_invocations() == count


def test_a_compiler_without_openmp_is_named(tmp_path, monkeypatch):
    no_omp = _rejecting_cc(tmp_path, "no-omp-cc", "-fopenmp")
    monkeypatch.setenv("CC", str(no_omp))
    with pytest.raises(ToolchainUnavailable) as info:
        c_toolchain.build_library(_unique(tmp_path, "int f(void) { return 1; }"))
    assert info.value.cause == c_toolchain.NO_OPENMP
    assert "no OpenMP" in info.value.reason and "unsupported option" in info.value.reason


def test_generated_source_that_fails_quotes_the_compiler_and_keeps_the_source(tmp_path):
    source = _unique(tmp_path, "int broken(void) { return undeclared_name; }")
    with pytest.raises(ToolchainUnavailable) as info:
        c_toolchain.build_library(source)
    reason = info.value.reason
    assert info.value.cause == c_toolchain.SOURCE_FAILS
    assert "undeclared_name" in reason and "loom bug" in reason
    kept = Path(reason.split("kept in ")[1].split(")")[0])
    assert kept.read_text() == source


def test_cache_dir_follows_loom_cache_dir_then_xdg(monkeypatch, tmp_path):
    assert c_toolchain.cache_dir() == tmp_path / "cache" / "c"
    monkeypatch.delenv("LOOM_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert c_toolchain.cache_dir() == tmp_path / "xdg" / "loom" / "c"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")  # not absolute: ignored, as the spec says
    assert c_toolchain.cache_dir() == Path.home() / ".cache" / "loom" / "c"


def test_warn_fallback_warns_once_per_cause(tmp_path):
    first, second = f"cause one {tmp_path.name}", f"cause two {tmp_path.name}"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        c_toolchain.warn_fallback(first)
        c_toolchain.warn_fallback(first)
        c_toolchain.warn_fallback(second)
        c_toolchain.warn_fallback(first)
    assert [w.category for w in caught] == [CompilerWarning, CompilerWarning]
    assert first in str(caught[0].message) and "ATen" in str(caught[0].message)
    assert second in str(caught[1].message)
    assert issubclass(CompilerWarning, RuntimeWarning)


def test_a_concurrent_build_race_leaves_one_valid_library(tmp_path, cache):
    # A compiler slowed down so that both processes are inside it at once.
    slow = _script(tmp_path, "slow-cc", "sleep 0.5\nexec cc \"$@\"\n")
    gate = tmp_path / "go"
    source = _unique(tmp_path, "int answer(void) { return 1234; }")
    code = f"""
        import json, os, time
        from loom_backends import c_toolchain
        open(os.path.join({str(tmp_path)!r}, f"ready-{{os.getpid()}}"), "w").close()
        while not os.path.exists({str(gate)!r}):
            time.sleep(0.005)
        lib = c_toolchain.load_library({source!r})
        print(json.dumps({{"answer": lib.answer(), "compiles": c_toolchain.compiler_invocations()}}))
    """
    children = [_run_child(code, {"CC": str(slow)}) for _ in range(2)]
    deadline = time.monotonic() + 60
    while len(list(tmp_path.glob("ready-*"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)  # both at the gate before it opens
    gate.touch()
    results = [_child_result(child) for child in children]
    assert [r["answer"] for r in results] == [1234, 1234]
    assert all(r["compiles"] >= 1 for r in results)  # both really built it
    objects = list(cache.glob("*.so"))
    assert len(objects) == 1
    assert not [p for p in cache.iterdir() if p.name.startswith(".")]  # no temporary file left behind
    lib = ctypes.CDLL(str(objects[0]))
    assert lib.answer() == 1234


_TUNED_SOURCE = "int tuned(void) {\n#ifdef LOOM_TEST_TUNED\n    return 1;\n#else\n    return 0;\n#endif\n}"


def test_tuning_flags_the_compiler_accepts_are_used_and_recorded(tmp_path, monkeypatch, cache):
    monkeypatch.setattr(c_toolchain, "TUNING_FLAGS", ("-DLOOM_TEST_TUNED",))
    assert c_toolchain.load_library(_unique(tmp_path, _TUNED_SOURCE)).tuned() == 1
    (marker,) = cache.glob("probe-*.ok")
    assert marker.read_text().splitlines()[0] == "tuning: -DLOOM_TEST_TUNED"


def test_tuning_flags_a_compiler_rejects_are_left_out(tmp_path, monkeypatch, cache):
    picky = _rejecting_cc(tmp_path, "picky-cc", "-DLOOM_TEST_TUNED")
    monkeypatch.setenv("CC", str(picky))
    monkeypatch.setattr(c_toolchain, "TUNING_FLAGS", ("-DLOOM_TEST_TUNED",))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning: the library builds, only without the flag
        assert c_toolchain.load_library(_unique(tmp_path, _TUNED_SOURCE)).tuned() == 0
    (marker,) = cache.glob("probe-*.ok")
    assert marker.read_text().splitlines()[0] == "tuning: "
    # A second process reads the verdict from the marker: no probe, no compile.
    child = _run_child(f"""
        import json
        from loom_backends import c_toolchain
        c_toolchain.TUNING_FLAGS = ("-DLOOM_TEST_TUNED",)
        lib = c_toolchain.load_library({_unique(tmp_path, _TUNED_SOURCE)!r})
        print(json.dumps({{"tuned": lib.tuned(), "compiles": c_toolchain.compiler_invocations()}}))
    """, env={"CC": str(picky)})
    assert _child_result(child) == {"tuned": 0, "compiles": 0}
