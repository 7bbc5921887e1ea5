"""The ``loom`` command: ``loom demo`` (the README's main job) and ``loom explain SCRIPT``."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``loom`` console script."""
    parser = argparse.ArgumentParser(prog="loom", description="loom: a just-in-time compiler for PyTorch programs")
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="compile a small model with loom and show what it did")
    demo.add_argument("--backend", default="eager", help="backend to compile with (default: eager)")
    demo.add_argument("--quick", action="store_true", help="fewer timing repetitions")
    args = parser.parse_args(argv)
    if args.command == "demo":
        from .demo import run_demo

        return run_demo(backend=args.backend, quick=args.quick)
    return 2


if __name__ == "__main__":
    sys.exit(main())
