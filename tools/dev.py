#!/usr/bin/env python3
"""loom's development driver: set-up, the demo, and every test, from a machine with only python3 and pip.

    python3 tools/dev.py demo      # set up .venv (if needed), then run `loom demo` on CPython 3.11
    python3 tools/dev.py demo --python 3.12   # the same in .venv-py3.12 (or 3.13)
    python3 tools/dev.py test      # set up every venv (if needed), then every suite of SUITES and ruff
    python3 tools/dev.py setup     # only set up (`--python 3.X`: one venv); `--force` reinstalls everything
    python3 tools/dev.py build     # rebuild the C/C++ extensions (loom-framehook, loom-guards' accelerator)
                                   # in every venv (`--python 3.X`: one) after a csrc/ edit

Arguments dev.py does not know go to pytest (`test`) or to `loom demo` (`demo`).

Set-up is idempotent. It makes one virtual environment per CPython, all alike: `.venv` (CPython 3.11,
the interpreter running this script) and `.venv-py3.12`, `.venv-py3.13` (found through `pyenv prefix`;
a missing one is reported and skipped). Each holds torch==2.13.0, the rest of THIRD_PARTY and all five
packages in editable mode, with loom-framehook's C extension and loom-guards' C++ accelerator built
for that interpreter. On 3.11 torch is the CPU wheel that lies on disk on our machines (a looser pin
downloads gigabytes of CUDA wheels); on 3.12 and 3.13 there is none on disk, so the registry's CUDA
build comes (~530 MB to download, ~4.7 GB installed; it runs on the CPU), with MODEL_ZOO. Stamps in each venv of what
shapes it make a second run take well under a second.
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
MAIN = "3.11"  # the interpreter that runs this script; the only one every suite passes on so far
PYTHONS = [MAIN, "3.12", "3.13"]
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
# The model zoo (tests/test_model_zoo.py), on 3.12/3.13 only: torchvision from the registry is built against
# torch's CUDA build, which those venvs hold; beside 3.11's CPU wheel it does not import (timm and diffusers
# need it). 0.28 is the torchvision release made for torch 2.13.
MODEL_ZOO = ["torchvision==0.28.0", "timm", "diffusers"]


def third_party(minor: str) -> list[str]:
    """What pip installs into the venv of CPython ``minor`` besides loom's packages."""
    return THIRD_PARTY if minor == MAIN else THIRD_PARTY + MODEL_ZOO


# The suites each CPython runs: a package's tests/ by name, or "tests" (the cross-package tests).
# loom-symbolic models CPython 3.11 and 3.12 bytecode; `loom` and tests/ need its translation (on
# another version loom.compile runs everything uncompiled). Issue 15, the port of the translator to
# 3.13, adds "symbolic", "loom" and "tests" to that row once they pass there.
SUITES = {
    "3.11": ["framehook", "guards", "symbolic", "backends", "loom", "tests"],
    "3.12": ["framehook", "guards", "symbolic", "backends", "loom", "tests"],
    "3.13": ["framehook", "guards", "symbolic", "backends", "loom", "tests"],
}
# The Triton backend's tests run kernels under Triton's interpreter, loom-symbolic's drive OpInfo
# samples through fake mode, and the cross-package tests compile real models, run 2-process gloo
# groups and the GPU check's CPU dry run: CPU-bound minutes, spread over the cores by pytest-xdist. The
# other suites take seconds, less than starting the workers would save.
PARALLEL = {"backends", "symbolic", "tests"}
NO_TESTS = 5  # pytest's exit status when nothing was collected (a `-k` that selects nothing here)
# What a venv on 3.12/3.13 needs on disk, mostly torch's CUDA build: checked before that download.
SIDE_VENV_BYTES = 6 * 2**30


def log(message: str) -> None:
    print(f"[dev] {message}", flush=True)


def run(cmd: list[str], **kwargs) -> None:
    subprocess.run(cmd, check=True, **kwargs)


def venv_dir(minor: str) -> Path:
    return ROOT / ".venv" if minor == MAIN else ROOT / f".venv-py{minor}"


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def digest(paths: list[Path], *texts: str) -> str:
    """A hash of the given files' contents (missing files hash as absent) and of ``texts``."""
    h = hashlib.sha256()
    for path in sorted(paths):
        h.update(str(path.relative_to(ROOT)).encode())
        h.update(path.read_bytes() if path.exists() else b"<absent>")
    for text in texts:
        h.update(b"\0" + text.encode())
    return h.hexdigest()


def package_inputs(package: str) -> list[Path]:
    """The files that shape ``package``'s editable install: its pyproject.toml, and for loom-framehook
    and loom-guards what their compiled part is built from."""
    base = ROOT / "packages" / package
    inputs = [base / "pyproject.toml"]
    if package in COMPILED:
        inputs += [base / "hatch_build.py", *sorted((base / "csrc").glob("*"))]
    if package == "guards":
        # _build.py holds the compile recipe (flags, sources) that hatch_build.py and the first-import build share
        inputs.append(base / "src" / "loom_guards" / "_build.py")
    return inputs


# The packages with a compiled part, named in messages. An editable (re)install of the package builds
# it, without build isolation, so that the build hook finds the venv's own setuptools and torch
# (guards' accelerator is compiled against that exact torch).
COMPILED = {"framehook": "loom-framehook's C extension", "guards": "loom-guards' C++ accelerator"}


def stamp_matches(stamp: Path, value: str) -> bool:
    return stamp.exists() and stamp.read_text() == value


def pip(venv: Path, *args: str) -> None:
    run([str(venv_python(venv)), "-m", "pip", "--disable-pip-version-check", "-q", *args])


def side_python(minor: str) -> str | None:
    """The newest CPython ``minor`` that pyenv has (its interpreter's path), or None."""
    pyenv = shutil.which("pyenv")
    if pyenv is None:
        return None
    out = subprocess.run([pyenv, "versions", "--bare"], capture_output=True, text=True).stdout
    versions = [v.strip() for v in out.splitlines() if v.strip() == minor or v.strip().startswith(minor + ".")]
    for version in sorted(versions, key=lambda v: [int(p) if p.isdigit() else -1 for p in v.split(".")], reverse=True):
        prefix = subprocess.run([pyenv, "prefix", version], capture_output=True, text=True).stdout.strip()
        candidate = Path(prefix) / "bin" / "python"
        if prefix and candidate.exists():
            return str(candidate)
    return None


def interpreter(minor: str) -> str | None:
    """The interpreter a venv for ``minor`` is made from: this one for 3.11, pyenv's for the others."""
    return sys.executable if minor == MAIN else side_python(minor)


def install_packages(venv: Path, packages: list[str]) -> None:
    """Install ``packages`` in ``venv`` in editable mode, in one pip run, and stamp each."""
    if not packages:
        return
    builds = [COMPILED[p] for p in packages if p in COMPILED]
    log(f"installing {', '.join('loom-' + p if p != 'loom' else p for p in packages)} in editable mode into "
        f"{venv.name}" + (f" (builds {' and '.join(builds)})" if builds else ""))
    # No build isolation: hatchling and setuptools are already in the venv, a fresh isolated build
    # environment per package would cost seconds each, and guards' accelerator must be compiled
    # against the venv's torch (an isolated build has none).
    editable = [arg for p in packages for arg in ("-e", str(ROOT / "packages" / p))]
    pip(venv, "install", "--no-build-isolation", "--no-deps", *editable)
    for package in packages:
        (venv / f".loom-{package}").write_text(digest(package_inputs(package)))


def install_third_party(venv: Path, minor: str) -> None:
    """pip-install ``minor``'s third-party set into ``venv``, trying a second time after a failure.

    A CI run once failed here on 3.13, after 3.12's venv and pip's cache had taken torch's CUDA build (pip's
    message was not in what CI printed: a download that broke off, or a disk that filled). So a failed
    install is tried once more, after emptying pip's cache and without writing to it, saying how much disk
    was free; a second failure is the set-up's.
    """
    try:
        pip(venv, "install", *third_party(minor))
    except subprocess.CalledProcessError as exc:
        free = shutil.disk_usage(ROOT).free
        log(f"installing into {venv.name} failed ({exc.returncode}; {free / 2**30:.1f} GiB free): emptying "
            f"pip's cache and trying once more")
        subprocess.run([str(venv_python(venv)), "-m", "pip", "--disable-pip-version-check", "-q", "cache",
                        "purge"])
        pip(venv, "install", "--no-cache-dir", *third_party(minor))


def has_torch(venv: Path) -> bool:
    return any(venv.glob("lib/python*/site-packages/torch/__init__.py"))


def setup_venv(minor: str, python: str, force: bool) -> str | None:
    """Make ``minor``'s venv complete: third-party set, five editable packages, compiled parts, bytecode.

    Returns None when it is ready, or why it was left out (only for lack of disk space).
    """
    venv = venv_dir(minor)
    started = time.perf_counter()
    if not venv_python(venv).exists():
        log(f"creating {venv.name} with {python}")
        run([python, "-m", "venv", str(venv)])
    deps_stamp = venv / ".loom-deps"
    # The third-party set, and the interpreter; not all of this file, so that editing the test table
    # reinstalls nothing. (The packages are installed with --no-deps: their own requirements are in
    # THIRD_PARTY.)
    deps = digest([], minor, *third_party(minor))
    stale = list(PACKAGES)
    if force or not stamp_matches(deps_stamp, deps):
        if minor == MAIN:
            log(f"installing third-party dependencies into {venv.name} (torch==2.13.0 from the wheel on disk)")
        elif has_torch(venv):
            log(f"installing third-party dependencies into {venv.name} (torch==2.13.0 from the registry)")
        else:
            free = shutil.disk_usage(ROOT).free
            if free < SIDE_VENV_BYTES:
                return f"{free / 2**30:.1f} GiB free, {venv.name} needs ~{SIDE_VENV_BYTES / 2**30:.0f} GiB (torch's CUDA build)"
            log(f"installing third-party dependencies into {venv.name}: torch==2.13.0 from the registry, its "
                f"CUDA build (~530 MB to download, ~4.7 GB on disk, {free / 2**30:.0f} GiB free; a few minutes)")
        install_third_party(venv, minor)
        deps_stamp.unlink(missing_ok=True)  # until the packages are in again: a new torch needs a new accelerator
    else:
        # Per package: a change to one pyproject.toml (or to framehook's or guards' compiled sources)
        # reinstalls that package only.
        stale = [p for p in PACKAGES if not stamp_matches(venv / f".loom-{p}", digest(package_inputs(p)))]
    install_packages(venv, stale)
    deps_stamp.write_text(deps)
    # An editable install leaves loom's sources without bytecode, and none is written at import when
    # PYTHONDONTWRITEBYTECODE is set (as on CI): compile it here, as pip does for an installed package,
    # so that no process recompiles loom. Up-to-date files are skipped. A source that does not compile
    # is the tests' to report, not a reason to stop the set-up.
    compiled = subprocess.run([str(venv_python(venv)), "-m", "compileall", "-q",
                               *(str(ROOT / "packages" / p / "src") for p in PACKAGES)])
    if compiled.returncode != 0:
        log(f"compileall found sources that do not compile on {minor} (see above)")
    seconds = time.perf_counter() - started
    if seconds > 5:
        log(f"{venv.name} ready ({seconds:.0f} s)")
    return None


def setup(force: bool = False, only: str | None = None) -> dict[str, str | None]:
    """Set up every venv of PYTHONS (or only ``only``'s); maps each version to None (ready) or why not.

    The 3.11 venv must set up (nothing runs without it, so a failure there stops the script); a
    missing side interpreter, too little disk or a failed install on 3.12/3.13 is reported, and that
    version's suites are skipped or failed by ``test``.
    """
    if sys.version_info[:2] != tuple(int(p) for p in MAIN.split(".")):
        sys.exit(f"tools/dev.py needs CPython {MAIN} (torch==2.13.0's wheel on disk is cp311); "
                 f"this is {sys.version.split()[0]}")
    started = time.perf_counter()
    states: dict[str, str | None] = {}
    for minor in [only] if only else PYTHONS:
        python = interpreter(minor)
        if python is None:
            states[minor] = f"CPython {minor} not found (pyenv prefix found nothing)"
            log(f"SKIP {venv_dir(minor).name}: {states[minor]}; its suites will not run")
            continue
        if minor == MAIN:
            states[minor] = setup_venv(minor, python, force)
            continue
        try:
            states[minor] = setup_venv(minor, python, force)
        except subprocess.CalledProcessError as exc:
            states[minor] = f"FAILED: set-up of {venv_dir(minor).name} failed ({exc})"
        if states[minor] is not None:
            log(f"{'SKIP' if not states[minor].startswith('FAILED') else 'FAIL'} {venv_dir(minor).name}: "
                f"{states[minor]}")
    log(f"environment ready ({time.perf_counter() - started:.1f} s)")
    return states


def pytest_step(minor: str, suite: str, extra: list[str]) -> tuple[str, list[str]]:
    """The step's name (``packages/<suite>/tests``, `` on 3.X`` off 3.11) and its command."""
    target = "tests" if suite == "tests" else f"packages/{suite}/tests"
    workers = ["-n", str(min(4, os.cpu_count() or 1))] if suite in PARALLEL else []
    name = target if minor == MAIN else f"{target} on {minor}"
    return name, [str(venv_python(venv_dir(minor))), "-m", "pytest", str(ROOT / target), *workers,
                  "-p", "loom_watchdog", *extra]


def test(extra: list[str], states: dict[str, str | None]) -> int:
    """Run ruff and every suite of SUITES, each in its own process, then report each one's result.

    Non-zero if any failed. Each package runs alone, in its own process: no package may lean on
    another's conftest. A version whose venv could not be made is skipped (no interpreter, no disk)
    or failed (its set-up failed); a suite that collects nothing (exit 5, e.g. under ``-k``) is not.
    """
    steps: list[tuple[str, list[str] | None, str | None]] = [
        ("ruff", [str(venv_dir(MAIN) / "bin" / "ruff"), "check", str(ROOT)], None)
    ]
    for minor, suites in SUITES.items():
        for suite in suites:
            name, cmd = pytest_step(minor, suite, extra)
            steps.append((name, cmd, states.get(minor)))
    results = []
    # tools/pytest_plugins holds loom_watchdog: a test that hangs fails after LOOM_TEST_TIMEOUT seconds
    # with its stacks printed, instead of eating the CI budget.
    plugins = str(ROOT / "tools" / "pytest_plugins")
    pythonpath = os.pathsep.join(p for p in (plugins, os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": pythonpath}
    for name, cmd, why_not in steps:
        if why_not is not None:
            outcome = "FAILED (set-up)" if why_not.startswith("FAILED") else "skipped"
            log(f"{'FAIL' if outcome.startswith('FAILED') else 'SKIP'} {name}: {why_not}")
            results.append((name, outcome, 0.0))
            continue
        log(f"=== {name}")
        started = time.perf_counter()
        code = subprocess.run(cmd, cwd=ROOT, env=env).returncode
        outcome = "ok" if code == 0 else "no tests" if code == NO_TESTS else f"FAILED ({code})"
        results.append((name, outcome, time.perf_counter() - started))
    log("summary:")
    for name, outcome, seconds in results:
        log(f"  {outcome:<15} {seconds:7.1f} s  {name}")
    log(f"  {'total':<15} {sum(s for _, _, s in results):7.1f} s")
    return 1 if any(outcome.startswith("FAILED") for _, outcome, _ in results) else 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False
    )
    parser.add_argument("command", choices=["setup", "demo", "test", "build"])
    parser.add_argument("--force", action="store_true", help="reinstall everything")
    parser.add_argument("--python", choices=PYTHONS, help="demo, setup, build: the CPython to use (default: "
                        f"{MAIN} for demo, every one for setup and build)")
    # Everything else goes on to pytest or `loom demo` (parse_known_args leaves those arguments in
    # order; a `--` may separate them).
    args, rest = parser.parse_known_args()
    if rest[:1] == ["--"]:
        rest = rest[1:]
    if args.command == "demo":
        minor = args.python or MAIN
        # The demo needs only its own venv: a first `demo` does not download 3.12/3.13's torch.
        why_not = setup(force=args.force, only=minor).get(minor)
        if why_not is not None:
            log(f"cannot run the demo on {minor}: {why_not}")
            return 1
        return subprocess.run([str(venv_dir(minor) / "bin" / "loom"), "demo", *rest], cwd=ROOT).returncode
    if args.python and args.command == "test":
        parser.error("--python applies to demo, setup and build: test runs every version of SUITES")
    states = setup(force=args.force, only=args.python)
    if args.command == "build":
        for minor, why_not in states.items():
            if why_not is None:
                install_packages(venv_dir(minor), list(COMPILED))
        return 0
    if args.command == "test":
        return test(rest, states)
    return 1 if any(why and why.startswith("FAILED") for why in states.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
