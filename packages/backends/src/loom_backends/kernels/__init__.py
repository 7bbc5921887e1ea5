"""Device-neutral kernel compilation: the part of loom's compiler that both code generators share.

``graph.py`` lowers an ATen graph node by node with the rules in ``lowering/`` (written once, in the
``ops`` language of ``ops.py``) into the IR of ``ir.py``; ``scheduler.py`` groups the stored buffers into
fused kernels; ``sizevars.py``/``symbols.py`` carry sizes and index expressions (symbolic ones too);
``decompositions.py`` is the ATen decomposition table, ``fallbacks.py`` the ops left to ATen. A code
generator (``loom_backends.triton``, ``loom_backends.c``) turns the scheduled kernels into source for
its target by running each node's loop body under its own ``ops`` handler.
"""
