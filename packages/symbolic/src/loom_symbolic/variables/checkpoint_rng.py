"""The checkpoint context of a recorded region that draws random numbers: its recomputation sees the forward's draws.

Eager's ``checkpoint`` restores the RNG state before it recomputes; ``tag_activation_checkpoint``'s own
implementation does not (it forces ``preserve_rng_state=False``), so a backward through the region would draw
anew. Two regimes:

* run as it is (the eager backend): the forward context notes the generators' states (CPU, and CUDA's where in use) on entry, and the
  recompute context sets it for the recomputation and puts the backward's own state back after, as eager does;
  every op is recomputed. (Saving the draws instead breaks on in-place random ops such as dropout's
  ``bernoulli_``: the saved mask is divided in place afterwards, and the cache refuses the mutated entry.)
* traced by AOTAutograd (a proxy mode is active): the random ops' results are tagged to be saved, so the
  partitioner keeps the forward's draws for the backward (it cannot replay a generator state).
"""

from __future__ import annotations

import torch
import torch.utils.checkpoint as _checkpoint


def _policy(ctx: object, op: object, *args: object, **kwargs: object) -> _checkpoint.CheckpointPolicy:
    """Random ops' results are saved when traced by AOTAutograd; as eager, everything is recomputed."""
    seeded = torch.Tag.nondeterministic_seeded in getattr(op, "tags", ())
    if seeded and _checkpoint._is_compiling(op, args, kwargs):
        return _checkpoint.CheckpointPolicy.MUST_SAVE
    return _checkpoint.CheckpointPolicy.PREFER_RECOMPUTE


def _states() -> tuple:
    """The CPU generator's state, and each CUDA device's where CUDA is in use (as eager's checkpoint keeps)."""
    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_available() and torch.cuda.is_initialized() else None
    return torch.get_rng_state(), cuda


def _set_states(states: tuple) -> None:
    cpu, cuda = states
    torch.set_rng_state(cpu)
    if cuda is not None:
        torch.cuda.set_rng_state_all(cuda)


class _Replaying:
    """One side of the pair: enters the selective-checkpoint mode, and notes (forward) or replays (recompute)
    the generator's state, shared through ``box``."""

    def __init__(self, mode: object, box: dict, recompute: bool) -> None:
        self._mode, self._box, self._recompute, self._own_state = mode, box, recompute, None

    @property
    def ac_graph_id(self) -> object:
        """The region's id, kept on the mode (the op sets it on the forward context to tag the traced nodes)."""
        return self._mode.ac_graph_id

    @ac_graph_id.setter
    def ac_graph_id(self, value: object) -> None:
        self._mode.ac_graph_id = value

    def __enter__(self) -> _Replaying:
        if self._recompute:
            self._own_state = _states()
            if "state" in self._box:
                _set_states(self._box["state"])
        else:
            self._box["state"] = _states()
        self._mode.__enter__()
        return self

    def __exit__(self, *exc_info: object) -> None:
        try:
            self._mode.__exit__(*exc_info)
        finally:
            if self._recompute and self._own_state is not None:
                _set_states(self._own_state)  # the backward's own draws go on from where they were


def replaying_draws() -> tuple[object, object]:
    """A ``context_fn`` for ``checkpoint``: (forward context, recompute context) sharing the generator state."""
    forward, recompute = _checkpoint.create_selective_checkpoint_contexts(_policy)
    if _checkpoint._is_compiling(None, (), {}):
        return forward, recompute  # traced: checkpoint takes only the dispatch modes, and the tags do the work
    box: dict = {}
    return _Replaying(forward, box, False), _Replaying(recompute, box, True)
