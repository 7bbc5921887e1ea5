"""Each package builds its own wheel, alone, with the metadata and files it should carry."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {
    "framehook": ("loom_framehook", []),
    "guards": ("loom_guards", ["torch>=2.6"]),
    "symbolic": ("loom_symbolic", ["loom-guards<0.2,>=0.1", "torch>=2.6", "bytecode>=0.15"]),
    "backends": ("loom_backends", ["torch>=2.6", "triton>=3.0", "numpy>=1.24"]),
    "loom": ("loom", ["loom-framehook<0.2,>=0.1", "loom-guards<0.2,>=0.1", "loom-symbolic<0.2,>=0.1",
                      "loom-backends<0.2,>=0.1", "torch>=2.6"]),
}


def build_wheel(package: str, out: Path) -> Path:
    # The guards accelerator (C++ against torch's headers) is built by tools/dev.py; here the wheel is
    # built without it (what an isolated build without torch gives), which takes seconds, not a minute.
    env = {**os.environ, "LOOM_GUARDS_ACCEL": "off"}
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out),
         str(ROOT / "packages" / package)],
        check=True,
        capture_output=True,
        env=env,
    )
    (wheel,) = out.glob("*.whl")
    return wheel


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_each_package_builds_its_wheel_alone(package, tmp_path):
    module, requirements = PACKAGES[package]
    wheel = build_wheel(package, tmp_path)
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
        text = archive.read(metadata).decode()
    assert f"{module}/__init__.py" in names
    assert "Version: 0.1.0" in text
    requires = sorted(line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Requires-Dist:"))
    assert requires == sorted(requirements)
    if package == "framehook":
        tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
        assert f"-{tag}-{tag}-" in wheel.name
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        assert f"loom_framehook/_framehook{suffix}" in names
        assert not any(n.endswith(".c") for n in names)
    else:
        assert wheel.name.endswith("-py3-none-any.whl")


def test_framehook_sdist_ships_the_c_sources(tmp_path):
    subprocess.run([sys.executable, "-m", "hatchling", "build", "-t", "sdist", "-d", str(tmp_path)],
                   cwd=ROOT / "packages" / "framehook", check=True, capture_output=True)
    (sdist,) = tmp_path.glob("*.tar.gz")
    import tarfile

    with tarfile.open(sdist) as archive:
        names = archive.getnames()
    assert any(n.endswith("csrc/framehook.c") or "/csrc/" in n for n in names)
    assert any(n.endswith("hatch_build.py") for n in names)
