"""The ``loom`` command: ``loom demo`` (the README's main job) and ``loom explain SCRIPT [-- ARGS]``."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``loom`` console script; returns the exit status."""
    parser = argparse.ArgumentParser(prog="loom", description="loom: a just-in-time compiler for PyTorch programs")
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="compile a small GPT-style model with loom and show what it did")
    demo.add_argument("--backend", default="eager", help="backend to compile with (default: eager)")
    demo.add_argument("--quick", action="store_true", help="fewer timing repetitions")
    demo.add_argument("--no-torch-compile", action="store_true", help="skip the torch.compile comparison")
    explain = commands.add_parser(
        "explain",
        help="run a script with its functions compiled and print every graph break",
        description="Run SCRIPT (as __main__, with ARGS as sys.argv[1:]) with loom compiling every function "
        "defined in files under the script's folder, then print every graph break with its reason and "
        "source line, and what was captured.",
    )
    explain.add_argument("script", help="the Python script to run")
    explain.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the script (after --)")
    explain.add_argument("--backend", default="eager", help="backend to compile with (default: eager)")
    explain.add_argument("--verbose", action="store_true", help="also print each graph's code and the guards")
    args = parser.parse_args(argv)
    if args.command == "demo":
        from .demo import run_demo

        return run_demo(backend=args.backend, quick=args.quick, compare_torch=not args.no_torch_compile)
    if args.command == "explain":
        from .script_explain import explain_script

        script_args = args.args[1:] if args.args[:1] == ["--"] else args.args
        return explain_script(args.script, script_args, backend=args.backend, verbose=args.verbose)
    return 2


if __name__ == "__main__":
    sys.exit(main())
