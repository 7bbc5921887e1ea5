"""The accelerator built at first import: the cache key, the lock, failures and their warning, and
(end to end) a wheel built the way an index install builds it, installed into a fresh venv.

The unit tests never let a build succeed in this process (that would load a second accelerator here);
they fail it on purpose (``CXX=/bin/false``, a broken source, a missing compiler) or fake the build.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import threading
import time
import warnings
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

import loom_guards
from loom_guards import AcceleratorWarning, Local, TypeMatch, _build, _cache, _loader, compiler
from loom_guards._build import BuildProblem

PACKAGE_ROOT = Path(__file__).resolve().parents[1]  # packages/guards
INSTALLED = _loader._installed  # the real one (the `cache` fixture replaces it)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A private cache directory, the default mode, and no installed accelerator to find."""
    monkeypatch.setenv("LOOM_CACHE_DIR", str(tmp_path / "cache"))
    for name in ("LOOM_GUARDS_ACCEL", "LOOM_GUARDS_REBUILD", "LOOM_GUARDS_DEBUG", "CXX"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(_loader, "_installed", lambda: (None, None))
    return tmp_path / "cache" / "guards"


def copy_sources(dest: Path) -> Path:
    dest.mkdir(parents=True)
    for name in [*_build.SOURCES, *_build.HEADERS]:
        shutil.copy(_cache.source_dir() / name, dest / name)
    return dest


def entries(root: Path) -> list[Path]:
    return sorted(root.iterdir()) if root.exists() else []


def must_not_run(*args, **kwargs):
    raise AssertionError("this should not have run")


def load_warning() -> tuple[tuple, list[warnings.WarningMessage]]:
    """``_loader.load()`` and the warnings it issued."""
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        result = _loader.load()
    return result, list(record)


# -- where and under which key ------------------------------------------------------------------------


def test_the_cache_root_is_loom_cache_dir_then_xdg_then_home(monkeypatch, tmp_path):
    monkeypatch.setenv("LOOM_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert _cache.cache_root() == tmp_path / "c" / "guards"
    monkeypatch.delenv("LOOM_CACHE_DIR")
    assert _cache.cache_root() == tmp_path / "x" / "loom" / "guards"
    monkeypatch.setenv("XDG_CACHE_HOME", "")  # unset or empty: ~/.cache, as XDG says
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert _cache.cache_root() == tmp_path / "home" / ".cache" / "loom" / "guards"


def test_the_key_is_the_sources_contents_not_their_place(tmp_path, monkeypatch):
    monkeypatch.delenv("LOOM_GUARDS_DEBUG", raising=False)
    a, b = copy_sources(tmp_path / "a"), copy_sources(tmp_path / "b")
    key = _cache.entry_name(a)
    assert key == _cache.entry_name(b) == _cache.entry_name(_cache.source_dir())
    assert key.startswith(f"{sys.implementation.cache_tag}-torch{torch.__version__}-")
    with (b / "state.h").open("a") as header:
        header.write("// any change to a header\n")
    assert _cache.entry_name(b) != key
    monkeypatch.setenv("LOOM_GUARDS_DEBUG", "1")  # other flags
    assert _cache.entry_name(a) != key


def test_one_builder_at_a_time_the_other_waits(tmp_path):
    lock, said, entered = tmp_path / "lock", [], threading.Event()

    def second():
        with _cache._locked(lock, said.append):
            entered.set()

    with _cache._locked(lock, said.append):
        thread = threading.Thread(target=second)
        thread.start()
        deadline = time.monotonic() + 10
        while not said and time.monotonic() < deadline:
            time.sleep(0.01)
        assert said and "waiting for another process" in said[0]
        assert not entered.wait(0.2)
    thread.join(10)
    assert entered.is_set()


# -- when it cannot be had ----------------------------------------------------------------------------


def test_a_failed_build_warns_once_with_the_reason_then_answers_from_its_record(cache, monkeypatch):
    monkeypatch.setenv("CXX", "/bin/false")  # a compiler that always fails
    (module, reason), record = load_warning()
    assert module is None
    assert reason == "its build failed: /bin/false exited with status 1 compiling " + reason.rsplit(" ", 1)[1]
    assert len(record) == 1 and record[0].category is AcceleratorWarning
    message = str(record[0].message)
    (entry,) = entries(cache)
    for part in (reason, "pure Python", str(entry / "build.log"), str(entry / "failed.json"),
                 "LOOM_GUARDS_REBUILD=1", "LOOM_GUARDS_ACCEL=off"):
        assert part in message, part
    assert json.loads((entry / "failed.json").read_text())["reason"] == reason
    assert sorted(p.name for p in entry.iterdir()) == ["build.log", "failed.json", "lock"]  # no tmp-*

    # The next import: the same warning, from the record, without asking torch or the compiler again.
    monkeypatch.setattr(_build, "torch_settings", must_not_run)
    monkeypatch.setattr(_cache, "_build_into", must_not_run)
    (module, again), record = load_warning()
    assert module is None and again == reason
    assert [str(w.message) for w in record] == [message]


def test_a_failed_build_is_retried_when_the_compiler_changes_or_on_request(cache, monkeypatch):
    monkeypatch.setenv("CXX", "/bin/false")
    load_warning()
    builds = []

    def fake_build(*args):
        builds.append(os.environ.get("CXX"))
        raise BuildProblem("fake failure", "nothing")

    monkeypatch.setattr(_cache, "_build_into", fake_build)
    load_warning()
    assert builds == []  # same toolchain: the record answers
    monkeypatch.setenv("CXX", "/bin/true")
    (_, reason), _ = load_warning()
    assert builds == ["/bin/true"] and reason == "fake failure"
    monkeypatch.setenv("CXX", "/bin/false")
    monkeypatch.setenv("LOOM_GUARDS_REBUILD", "1")
    load_warning()
    assert builds == ["/bin/true", "/bin/false"]


def test_a_compiler_error_is_quoted_in_the_warning(cache, monkeypatch, tmp_path):
    broken = copy_sources(tmp_path / "src")
    for name in _build.HEADERS:  # every unit includes one first: each fails at once
        path = broken / name
        path.write_text("#error broken on purpose\n" + path.read_text())
    monkeypatch.setattr(_cache, "source_dir", lambda: broken)
    (module, reason), record = load_warning()
    assert module is None
    assert reason.startswith("its build failed: ") and ": error: #error broken on purpose" in reason
    assert reason in str(record[0].message)


def test_a_missing_compiler_is_named_with_its_fix_and_checked_again_next_time(cache, monkeypatch):
    monkeypatch.setenv("CXX", "/nonexistent/g++")
    monkeypatch.setattr(_cache, "_build_into", must_not_run)
    (module, reason), record = load_warning()
    assert module is None and reason == "no C++ compiler: '/nonexistent/g++' was not found"
    assert "install a C++ compiler (g++ or clang++" in str(record[0].message)
    assert not any(cache.glob("*/failed.json"))  # cheap to check: nothing recorded


def test_missing_python_headers_are_named_with_their_fix(cache, monkeypatch, tmp_path):
    monkeypatch.setattr(_build.sysconfig, "get_paths", lambda: {"include": str(tmp_path)})
    monkeypatch.setattr(_cache, "_build_into", must_not_run)
    (module, reason), record = load_warning()
    assert module is None and reason == f"the Python headers are missing (no Python.h in {tmp_path})"
    assert f"python{sys.version_info.major}.{sys.version_info.minor}-dev" in str(record[0].message)


def test_off_means_pure_python_without_looking_or_warning(cache, monkeypatch):
    monkeypatch.setenv("LOOM_GUARDS_ACCEL", "off")
    monkeypatch.setattr(_loader, "_installed", must_not_run)
    monkeypatch.setattr(_cache, "load_or_build", must_not_run)
    (module, reason), record = load_warning()
    assert module is None and reason == "disabled by LOOM_GUARDS_ACCEL=off" and record == []


def test_required_raises_instead_of_warning(cache, monkeypatch):
    monkeypatch.setenv("LOOM_GUARDS_ACCEL", "required")
    monkeypatch.setenv("CXX", "/nonexistent/g++")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeError, match=r"LOOM_GUARDS_ACCEL=required.*no C\+\+ compiler"):
            _loader.load()


def test_an_unexpected_error_warns_instead_of_breaking_the_import(cache, monkeypatch):
    def broken():
        raise KeyError("surprise")

    monkeypatch.setattr(_cache, "load_or_build", broken)
    (module, reason), record = load_warning()
    assert module is None and reason == "KeyError: 'surprise'" and len(record) == 1


def test_the_reason_reaches_accelerator_error_and_compile(cache, monkeypatch):
    monkeypatch.setattr(compiler, "_accel", compiler._accel)  # restored afterwards
    monkeypatch.setattr(compiler, "_accel_error", compiler._accel_error)
    monkeypatch.setenv("CXX", "/nonexistent/g++")
    with pytest.warns(AcceleratorWarning, match="no C\\+\\+ compiler"):
        compiler._load_accel()
    assert not loom_guards.accelerator_available()
    assert loom_guards.accelerator_error() == "no C++ compiler: '/nonexistent/g++' was not found"
    assert not loom_guards.compile([TypeMatch(Local("x"), int)]).accelerated


# -- an installed accelerator for another torch ---------------------------------------------------------


@pytest.mark.skipif(compiler._accel is None, reason="no installed accelerator here")
def test_an_installed_build_for_another_torch_is_replaced_by_one_from_the_cache(cache, monkeypatch):
    monkeypatch.setattr(compiler._accel, "TORCH_VERSION", "0.0.0-other")
    module, why = INSTALLED()
    assert module is None and "built for torch 0.0.0-other" in why
    monkeypatch.setattr(_loader, "_installed", INSTALLED)
    built_here = SimpleNamespace(TORCH_VERSION=torch.__version__, __file__="cached")
    monkeypatch.setattr(_cache, "load_or_build", lambda: built_here)
    (module, reason), record = load_warning()
    assert module is built_here and reason is None and record == []
    monkeypatch.setattr(_cache, "load_or_build", lambda: SimpleNamespace(TORCH_VERSION="0.0.0-cached", __file__="x"))
    (module, reason), record = load_warning()  # both unusable: both named
    assert module is None and "is for torch 0.0.0-cached" in reason and "built for torch 0.0.0-other" in reason


@pytest.mark.skipif(compiler._accel is None, reason="no installed accelerator to copy")
def test_a_cached_build_is_loaded_without_building(tmp_path):
    # In a child process: loading it here would put a second accelerator into this one.
    script = textwrap.dedent(
        """
        import shutil, sys
        from loom_guards import _cache, compiler
        entry = _cache.cache_root() / _cache.entry_name(_cache.source_dir())
        entry.mkdir(parents=True)
        shutil.copy(compiler._accel.__file__, entry / _cache.shared_object_name())
        def must_not_build(*args):
            raise AssertionError("built")
        _cache._build_into = _cache._build.torch_settings = must_not_build
        module = _cache.load_or_build()
        assert module.__file__ == str(entry / _cache.shared_object_name()), module.__file__
        assert module is sys.modules["loom_guards._accel"] and module.TORCH_VERSION == compiler._accel.TORCH_VERSION
        print("ok")
        """
    )
    env = {**os.environ, "LOOM_CACHE_DIR": str(tmp_path)}
    env.pop("LOOM_GUARDS_REBUILD", None)
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
    assert done.stderr == ""  # no "building" line


# -- end to end ----------------------------------------------------------------------------------------

PROBE = textwrap.dedent(
    """
    import json, sys, time, warnings
    import torch
    started = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import loom_guards as lg
    seconds = time.perf_counter() - started
    check = lg.compile([lg.TensorMatch(lg.Local("x"), torch.randn(3))])
    print(json.dumps({
        "package": lg.__file__, "accelerated": lg.accelerator_available(), "error": lg.accelerator_error(),
        "so": lg.compiler._accel.__file__ if lg.compiler._accel else None, "seconds": seconds,
        "check": [check.accelerated, check({"x": torch.randn(3)}), check({"x": torch.randn(4)})],
        "warnings": [str(w.message) for w in caught if "loom" in str(w.message)],
    }))
    """
)


def run_probe(python: Path, env: dict[str, str], cwd: Path) -> subprocess.Popen:
    return subprocess.Popen([str(python), "-c", PROBE], env=env, cwd=cwd, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def finish(process: subprocess.Popen) -> tuple[dict, str]:
    out, err = process.communicate(timeout=600)
    assert process.returncode == 0, err
    return json.loads(out.splitlines()[-1]), err


def test_an_isolated_wheel_builds_the_accelerator_at_first_import_and_reuses_it(tmp_path):
    # 1. The wheel, built as an index install builds it: in pip's isolated build environment (hatchling
    #    and setuptools fetched from the index, no torch), so without the accelerator but with its sources.
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PIP_", "LOOM_")) and k not in ("PYTHONPATH", "CXX")}
    wheels = tmp_path / "wheels"
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check", str(PACKAGE_ROOT),
         "-w", str(wheels)],
        env=env, capture_output=True, text=True,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = wheels.glob("loom_guards-*.whl")
    assert wheel.name.endswith("-py3-none-any.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert {f"loom_guards/_accel_src/{n}" for n in [*_build.SOURCES, *_build.HEADERS]} <= set(names)
    assert not [n for n in names if n.endswith(".so")]

    # 2. A fresh venv with only that wheel. torch comes from this test's own environment through a .pth
    #    file naming its site-packages: `--system-site-packages` would give the base interpreter's
    #    packages, not this venv's, and reinstalling torch would take minutes. (A path line in a .pth is
    #    only added to sys.path; the .pth files in that directory, loom's editable installs among them,
    #    are not processed, so the fresh venv's loom_guards is the one imported.) setuptools, which the
    #    build needs, comes the same way.
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q",
                    "--disable-pip-version-check", str(wheel)], env=env, check=True)
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    (site / "loom_test_torch.pth").write_text(str(Path(torch.__file__).parent.parent) + "\n")

    # 3. The first imports, two processes at once: one builds, the other waits for it.
    cache_dir = tmp_path / "cache"
    env["LOOM_CACHE_DIR"] = str(cache_dir)
    first = [run_probe(python, env, tmp_path) for _ in range(2)]
    results = [finish(p) for p in first]
    for report, err in results:
        assert report["package"].startswith(str(site)), report
        assert report["accelerated"] and report["error"] is None, (report, err)
        assert report["check"] == [True, True, False]
        assert report["warnings"] == [], report
        assert Path(report["so"]).parent.parent == cache_dir / "guards", report
    assert results[0][0]["so"] == results[1][0]["so"]
    stderrs = [err for _, err in results]
    assert sum("loom-guards: building the C++ guard accelerator" in err for err in stderrs) == 1, stderrs
    assert sum("waiting for another process" in err for err in stderrs) == 1, stderrs
    so = Path(results[0][0]["so"])
    stamp = so.stat().st_mtime_ns
    assert sorted(p.name for p in so.parent.iterdir()) == sorted(["build.log", "lock", so.name])

    # 4. A later import loads the cached accelerator: no build, nothing printed, little time.
    report, err = finish(run_probe(python, env, tmp_path))
    assert report["accelerated"] and report["so"] == str(so), report
    assert "loom-guards" not in err, err
    assert so.stat().st_mtime_ns == stamp
    assert report["seconds"] < 10, report  # the build takes tens of seconds; loading it, milliseconds
