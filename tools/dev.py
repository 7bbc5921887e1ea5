#!/usr/bin/env python3
"""loom's development driver: set-up, the demo, and every test, from a machine with only python3 and pip.

    python3 tools/dev.py demo      # set up (if needed), then run `loom demo`
    python3 tools/dev.py test      # set up (if needed), then run every test and ruff
    python3 tools/dev.py setup     # only set up; `--force` reinstalls everything
    python3 tools/dev.py build     # rebuild the C extensions (loom-framehook on every Python, loom-guards'
                                   # accelerator in .venv) after a csrc/ edit

Set-up is idempotent: it creates `.venv` (CPython 3.11) with torch==2.13.0 (the CPU wheel that lies
on disk on our machines: a looser pin downloads gigabytes of CUDA wheels), the third-party
dependencies and all five packages in editable mode, plus one small venv per extra CPython
(`.venv-py3.12`, `.venv-py3.13`, found through `pyenv prefix`) holding only loom-framehook and pytest.
A stamp of every file that shapes the environment makes a second run take well under a second.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
PACKAGES = ["framehook", "guards", "symbolic", "backends", "loom"]  # in dependency order
# torch is pinned here only: the packages ask for ranges (torch>=2.6), the environment takes the wheel on disk.
THIRD_PARTY = [
    "torch==2.13.0",
    "numpy",
    "triton",
    "bytecode",
    "transformers",
    "matplotlib",
    "pytest",
    "pytest-xdist",
    "expecttest",  # torch.testing's OpInfo samples, which loom-symbolic's fake-mode tests drive
    "coverage",  # loom-framehook's tests check that coverage keeps working under the hook
    "ruff",
    "hatchling",
    "setuptools",
    "editables",  # hatchling builds editable wheels with it
]
SIDE_PYTHONS = ["3.12", "3.13"]  # loom-framehook is also tested on these; torch is not needed there
SIDE_THIRD_PARTY = ["pytest", "coverage", "hatchling", "setuptools", "editables"]


def log(message: str) -> None:
    print(f"[dev] {message}", flush=True)


def run(cmd: list[str], **kwargs) -> None:
    subprocess.run(cmd, check=True, **kwargs)


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def digest(paths: list[Path]) -> str:
    """A hash of the given files' contents (missing files hash as absent)."""
    h = hashlib.sha256()
    for path in sorted(paths):
        h.update(str(path.relative_to(ROOT)).encode())
        h.update(path.read_bytes() if path.exists() else b"<absent>")
    return h.hexdigest()


def framehook_sources() -> list[Path]:
    base = ROOT / "packages" / "framehook"
    return [base / "hatch_build.py", base / "pyproject.toml", *sorted((base / "csrc").glob("*"))]


def guards_sources() -> list[Path]:
    """What loom-guards' C++ accelerator is built from (it is built against the venv's torch)."""
    base = ROOT / "packages" / "guards"
    # _build.py holds the compile recipe (flags, sources) that hatch_build.py and the first-import build share
    return [base / "hatch_build.py", base / "pyproject.toml", base / "src" / "loom_guards" / "_build.py",
            *sorted((base / "csrc").glob("*"))]


def stamp_matches(stamp: Path, value: str) -> bool:
    return stamp.exists() and stamp.read_text() == value


def pip(venv: Path, *args: str) -> None:
    run([str(venv_python(venv)), "-m", "pip", "--disable-pip-version-check", "-q", *args])


def ensure_venv(venv: Path, python: str) -> None:
    if not venv_python(venv).exists():
        log(f"creating {venv.name} with {python}")
        run([python, "-m", "venv", str(venv)])


def setup_main(force: bool) -> None:
    """The 3.11 environment: every package, editable, with torch and the test tools."""
    if sys.version_info[:2] != (3, 11):
        sys.exit(
            f"tools/dev.py needs CPython 3.11 (torch==2.13.0's wheel on disk is cp311); "
            f"this is {sys.version.split()[0]}"
        )
    ensure_venv(VENV, sys.executable)
    deps_stamp = VENV / ".loom-deps"
    deps = digest([Path(__file__).resolve(), *(ROOT / "packages" / p / "pyproject.toml" for p in PACKAGES)])
    if force or not stamp_matches(deps_stamp, deps):
        log("installing third-party dependencies (torch==2.13.0 from the wheel on disk)")
        pip(VENV, "install", *THIRD_PARTY)
        editable = [arg for p in PACKAGES for arg in ("-e", str(ROOT / "packages" / p))]
        log("installing the five loom packages in editable mode")
        # No build isolation: hatchling and setuptools are already in the venv, and a fresh isolated
        # build environment per package would cost seconds each.
        pip(VENV, "install", "--no-build-isolation", "--no-deps", *editable)
        deps_stamp.write_text(deps)
        (VENV / ".loom-framehook").write_text(digest(framehook_sources()))
        (VENV / ".loom-guards").write_text(digest(guards_sources()))
    build_framehook(VENV, force=False)
    build_guards(force=False)
    # An editable install leaves loom's sources without bytecode, and none is written at import when
    # PYTHONDONTWRITEBYTECODE is set (as on CI): compile it here, as pip does for an installed package,
    # so that no process recompiles loom. Up-to-date files are skipped.
    run([str(venv_python(VENV)), "-m", "compileall", "-q", *(str(ROOT / "packages" / p / "src") for p in PACKAGES)])


def build_framehook(venv: Path, force: bool) -> None:
    """Rebuild the framehook extension in ``venv`` when its C sources or build hook changed."""
    stamp = venv / ".loom-framehook"
    current = digest(framehook_sources())
    if not force and stamp_matches(stamp, current):
        return
    log(f"building loom-framehook's C extension for {venv.name}")
    pip(venv, "install", "--no-build-isolation", "--no-deps", "-e", str(ROOT / "packages" / "framehook"))
    stamp.write_text(current)


def build_guards(force: bool) -> None:
    """Rebuild loom-guards' C++ accelerator in the main venv when its sources or build hook changed."""
    stamp = VENV / ".loom-guards"
    current = digest(guards_sources())
    if not force and stamp_matches(stamp, current):
        return
    log("building loom-guards' C++ accelerator for .venv")
    pip(VENV, "install", "--no-build-isolation", "--no-deps", "-e", str(ROOT / "packages" / "guards"))
    stamp.write_text(current)


def side_pythons() -> dict[str, str | None]:
    """Map each extra CPython version to its interpreter path through pyenv (None if absent)."""
    found: dict[str, str | None] = {}
    pyenv = shutil.which("pyenv")
    versions = []
    if pyenv:
        out = subprocess.run([pyenv, "versions", "--bare"], capture_output=True, text=True).stdout
        versions = [v.strip() for v in out.splitlines() if v.strip()]
    for minor in SIDE_PYTHONS:
        matches = sorted((v for v in versions if v == minor or v.startswith(minor + ".")), reverse=True)
        found[minor] = None
        for version in matches:
            prefix = subprocess.run([pyenv, "prefix", version], capture_output=True, text=True).stdout.strip()
            candidate = Path(prefix) / "bin" / "python"
            if candidate.exists():
                found[minor] = str(candidate)
                break
    return found


def setup_side(force: bool) -> None:
    for minor, python in side_pythons().items():
        venv = ROOT / f".venv-py{minor}"
        if python is None:
            log(f"CPython {minor} not found through pyenv: loom-framehook will not be tested on it")
            continue
        ensure_venv(venv, python)
        stamp = venv / ".loom-deps"
        wanted = digest([Path(__file__).resolve()])
        if force or not stamp_matches(stamp, wanted):
            pip(venv, "install", *SIDE_THIRD_PARTY)
            stamp.write_text(wanted)
        build_framehook(venv, force=force)


def setup(force: bool = False) -> None:
    started = time.perf_counter()
    setup_main(force)
    setup_side(force)
    log(f"environment ready ({time.perf_counter() - started:.1f} s)")


def pytest_step(venv: Path, target: str, *extra: str) -> tuple[str, list[str]]:
    return target, [str(venv_python(venv)), "-m", "pytest", str(ROOT / target), *extra]


def test(extra: list[str]) -> int:
    """Run every suite in its own process, then report each one's result; non-zero if any failed."""
    steps: list[tuple[str, list[str]]] = [("ruff", [str(VENV / "bin" / "ruff"), "check", str(ROOT)])]
    # Each package alone, in its own process: no package may lean on another's conftest. The Triton
    # backend's tests run kernels under Triton's interpreter: spread them over the machine's cores.
    workers = ["-n", str(min(4, os.cpu_count() or 1))]
    parallel = {"backends": workers, "symbolic": workers}
    steps += [pytest_step(VENV, f"packages/{p}/tests", *parallel.get(p, []), *extra) for p in PACKAGES]
    steps.append(pytest_step(VENV, "tests", *extra))
    for minor, python in side_pythons().items():
        venv = ROOT / f".venv-py{minor}"
        if python is None:
            steps.append((f"framehook on {minor}", []))
            continue
        name, cmd = pytest_step(venv, "packages/framehook/tests", *extra)
        steps.append((f"{name} on {minor}", cmd))
    results = []
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    for name, cmd in steps:
        if not cmd:
            log(f"SKIP {name}: CPython {name.split()[-1]} is not installed (pyenv prefix found nothing)")
            results.append((name, "skipped", 0.0))
            continue
        log(f"=== {name}")
        started = time.perf_counter()
        code = subprocess.run(cmd, cwd=ROOT, env=env).returncode
        results.append((name, "ok" if code == 0 else f"FAILED ({code})", time.perf_counter() - started))
    log("summary:")
    for name, outcome, seconds in results:
        log(f"  {outcome:<12} {seconds:7.1f} s  {name}")
    return 1 if any(outcome.startswith("FAILED") for _, outcome, _ in results) else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["setup", "demo", "test", "build"])
    parser.add_argument("--force", action="store_true", help="reinstall everything")
    parser.add_argument("rest", nargs=argparse.REMAINDER, help="passed on to pytest or `loom demo`")
    args = parser.parse_args()
    setup(force=args.force)
    if args.command == "build":
        for venv in [VENV, *(ROOT / f".venv-py{m}" for m in SIDE_PYTHONS)]:
            if venv_python(venv).exists():
                build_framehook(venv, force=True)
        build_guards(force=True)
        return 0
    if args.command == "demo":
        return subprocess.run([str(VENV / "bin" / "loom"), "demo", *args.rest], cwd=ROOT).returncode
    if args.command == "test":
        return test(args.rest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
