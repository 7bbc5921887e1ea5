"""The second process of ``test_portable_process.py``: rebuilds guards from a records file and checks them
on frames made here, printing one JSON object: ``{"why": refusal or None, "verdicts": {case: [accel, pure]}}``.

Usage: ``python portable_child.py RECORDS SUBJECT_DIR SUBJECT_MODULE NUM_THREADS [swap]`` (``swap``: the
subject's ``helper`` is replaced by another function in ``sys.modules`` before the rebuild).
"""

from __future__ import annotations

import builtins
import importlib
import json
import sys
import types

import torch

import loom_guards
from loom_guards import from_records


def main() -> None:
    records_path, subject_dir, subject_name, threads = sys.argv[1:5]
    torch.set_num_threads(int(threads))
    sys.path.insert(0, subject_dir)
    subject = importlib.import_module(subject_name)
    if sys.argv[5:] == ["swap"]:
        exec("def helper(x, y=2, *, z=(1.5, 'a')):\n    return x\n", vars(subject))  # same name, other code
    with open(records_path) as f:
        guards, why = from_records(json.load(f))
    if guards is None:
        print(json.dumps({"why": why, "verdicts": {}}))
        return
    checks = [loom_guards.compile(guards, accelerate=accel) for accel in (True, False)
              if not accel or loom_guards.accelerator_available()]
    net = subject.Net()

    def verdict(**changes):
        f_locals = {"self": net, "x": torch.randn(4, 3), "c": subject.Colour.RED, **changes}
        # shaped like the frame hook's view of the frame that runs Net.forward
        frame = types.SimpleNamespace(f_locals=f_locals, f_globals=vars(subject), f_builtins=vars(builtins),
                                      closure=None, f_code=subject.Net.forward.__code__)
        return [check(frame) for check in checks]

    verdicts = {"equal frame": verdict()}
    verdicts["other shape"] = verdict(x=torch.randn(5, 3))
    verdicts["double"] = verdict(x=torch.randn(4, 3, dtype=torch.float64))
    verdicts["subclass"] = verdict(self=type("Sub", (subject.Net,), {})())
    verdicts["other enum member"] = verdict(c=subject.Colour.GREEN)
    other = subject.Net()
    other.eps = 1e-6
    verdicts["other eps"] = verdict(self=other)
    handle = net.register_forward_hook(lambda *a: None)
    verdicts["module hook"] = verdict()
    handle.remove()
    handle = torch.nn.modules.module.register_module_forward_hook(lambda *a: None)
    verdicts["global hook"] = verdict()
    handle.remove()
    subject.float = float
    verdicts["global shadows a builtin"] = verdict()
    del subject.float
    helper = subject.helper
    subject.helper = len
    verdicts["global rebound"] = verdict()
    subject.helper = helper
    with torch.no_grad():
        verdicts["no grad"] = verdict()
    torch.set_num_threads(int(threads) + 1)
    verdicts["other thread count"] = verdict()
    torch.set_num_threads(int(threads))
    verdicts["equal frame again"] = verdict()
    print(json.dumps({"why": None, "verdicts": verdicts, "dynamo": "torch._dynamo" in sys.modules}))


if __name__ == "__main__":
    main()
