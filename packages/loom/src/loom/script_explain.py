"""``loom explain SCRIPT [-- ARGS]``: run a script with its functions compiled and report every graph break.

How: the script runs with ``runpy`` as ``__main__`` (``sys.argv = [SCRIPT, *ARGS]``, its folder first
on ``sys.path``) while loom's hook is on for the main thread, with a recorder like ``loom.explain``'s
as the callback. The recorder compiles every function *defined in a file under the script's folder*
(the script and the modules next to it), wherever it is called from; other code (installed packages,
the standard library) runs as it is, except what a compiled function inlines. Nothing is cached past
the run. After the script ends (even with an exception) the report lists every graph break with its
reason, file:line and source line, and what was captured.

Limits: only the main thread is hooked (threads the script starts run uncompiled), and frames run
before the first compiled call are looked at like any other.
"""

from __future__ import annotations

import os
import runpy
import sys
import time
import traceback
import types

import loom_framehook as framehook

from . import frame_compiler
from .explain import Recorder
from .explain_report import ExplainReport
from .settings import Settings, make_settings


class ScriptRecorder(Recorder):
    """A recorder limited to code defined under one folder."""

    def __init__(self, settings: Settings, root: str) -> None:
        super().__init__(settings)
        self.root = root.rstrip(os.sep) + os.sep

    def __call__(self, frame: object) -> object:
        code = frame.f_code  # type: ignore[attr-defined]
        if not code.co_filename.startswith(self.root) and not frame_compiler.skipfiles.is_library_code(code):
            # Someone else's user code: leave it alone this time, but never mark it SKIP, which would
            # outlive the run (loom.cli.main may run inside a longer-lived process).
            return None
        return super().__call__(frame)

    def wants(self, code: types.CodeType, f_globals: dict | None = None) -> bool:
        """Only code defined under the script's folder (and what the base compiler wants of it)."""
        return code.co_filename.startswith(self.root) and super().wants(code, f_globals)


def explain_script(path: str, args: list[str], backend: str = "eager", verbose: bool = False) -> int:
    """Run the script and print the report; returns the script's exit status (1 on an exception)."""
    script = os.path.abspath(path)
    if not os.path.isfile(script):
        print(f"loom explain: no such file: {path}", file=sys.stderr)
        return 2
    recorder = ScriptRecorder(make_settings(backend, False, None, None), os.path.dirname(script))
    print(f"[loom explain] running {path} with loom compiling the functions under {recorder.root}",
          file=sys.stderr, flush=True)
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [script, *args]
    sys.path.insert(0, os.path.dirname(script))
    frame_compiler.unskip_user_codes()
    status = 0
    started = time.perf_counter()
    previous = framehook.set_callback(recorder)
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # the script's own failure: show it, then the report
        framehook.set_callback(previous)
        traceback.print_exc()
        status = 1
    finally:
        framehook.set_callback(previous)
        recorder.cleanup()
        sys.argv = saved_argv
        sys.path[:] = saved_path
    report = ExplainReport(
        name=path, backend=recorder.settings.backend_name, result=None, frames=recorder.frames,
        wall_seconds=time.perf_counter() - started, counts=dict(recorder.counts),
    )
    sys.stdout.flush()
    print(f"\n=== loom explain {path}")
    print(report.format(verbose=verbose))
    return status
