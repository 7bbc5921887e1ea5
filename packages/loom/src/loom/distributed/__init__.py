"""loom on ``torch.distributed``: DDP-wrapped modules, gradient-bucket graph splits, collectives.

loom runs on PyTorch's own distributed engine. ``loom.compile(DDP(model))`` leaves DDP's bookkeeping
(``DistributedDataParallel.forward``, its reducer and hooks: library code) running as it is and compiles
the wrapped module's forward, which DDP calls inside; ``DDP(loom.compile(model))`` compiles the same frames.
While DDP runs that forward, graphs compiled with an AOTAutograd backend are split at DDP's bucket
boundaries (:mod:`loom_backends.ddp_split`) so that each bucket's all-reduce overlaps the backward of
the others. See ``docs/distributed.md``.
"""

from .agree import RankMismatchError
from .ddp import active_ddp, backend_for, check_ready, first_call, forward_to_compile

__all__ = ["RankMismatchError", "active_ddp", "backend_for", "check_ready", "first_call", "forward_to_compile"]
