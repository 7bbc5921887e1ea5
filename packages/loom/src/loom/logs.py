"""loom's logs: one ``logging`` logger per topic, switched on by ``LOOM_LOGS`` or :func:`set_logs`.

::

    LOOM_LOGS=graph,guards,recompiles python train.py     # INFO on those topics
    LOOM_LOGS=+graph_breaks python train.py               # '+': verbose (DEBUG)
    LOOM_LOGS=all python train.py                         # every topic

    loom.set_logs("graph,+guards")                        # the same from Python; set_logs() turns all off

Topics and what they show:

========================  =======================================================================
``bytecode``              each compiled frame's original and rewritten bytecode
``graph``                 each captured FX graph as Python code (DEBUG: a table of nodes with shapes)
``guards``                the guards of each compiled entry (DEBUG: also the guard check's source)
``recompiles``            why a function is compiled again: the guard that failed (DEBUG: every miss)
``graph_breaks``          every graph break: what, why, the user's file:line and source line
                          (DEBUG: the chain of inlined calls that led there)
``output_code``           what a backend produced (the ``triton`` backend logs its generated source)
========================  =======================================================================

The loggers are ordinary ``logging`` loggers named ``loom.<topic>``: an application can configure them
itself (levels, handlers) instead. :func:`set_logs` attaches one handler, writing to ``sys.stderr`` as
it is at the time of the message, to each topic it turns on, and stops those topics propagating to the
root logger so that each message prints once. ``output_code`` is always verbose: backends log generated
source at DEBUG.
"""

from __future__ import annotations

import logging
import os
import sys

#: Topic name -> logger name.
TOPICS: dict[str, str] = {
    "bytecode": "loom.bytecode",
    "graph": "loom.graph",
    "guards": "loom.guards",
    "recompiles": "loom.recompiles",
    "graph_breaks": "loom.graph_breaks",
    "output_code": "loom.output_code",
}
#: Topics whose INFO level already means everything they have to say.
_ALWAYS_VERBOSE = {"output_code"}

ENV_VAR = "LOOM_LOGS"


class _StderrHandler(logging.StreamHandler):
    """Writes to whatever ``sys.stderr`` is when a record is emitted (so redirections and capsys work)."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property  # type: ignore[override]
    def stream(self):  # a property standing in for StreamHandler's attribute
        """The current ``sys.stderr``."""
        return sys.stderr

    @stream.setter
    def stream(self, value) -> None:  # StreamHandler.__init__ assigns it; ignore, we always look it up
        pass


_handler = _StderrHandler()
_handler.setFormatter(logging.Formatter("[%(name)s] %(message)s"))
_enabled: dict[str, int] = {}


def parse(spec: str) -> dict[str, int]:
    """``"graph,+guards"`` -> ``{"graph": INFO, "guards": DEBUG}``; unknown names raise ValueError."""
    if not isinstance(spec, str):
        raise TypeError(f"a log spec must be a str like 'graph,+guards', got {type(spec).__name__}")
    wanted: dict[str, int] = {}
    for raw in spec.split(","):
        item = raw.strip()
        if not item:
            continue
        verbose = item.startswith("+")
        name = item[1:].strip() if verbose else item
        names = list(TOPICS) if name == "all" else [name]
        for topic in names:
            if topic not in TOPICS:
                raise ValueError(
                    f"unknown loom log topic {name!r}; known topics: {', '.join(TOPICS)} (or 'all'), "
                    "each optionally prefixed with '+' for verbose output"
                )
            level = logging.DEBUG if verbose or topic in _ALWAYS_VERBOSE else logging.INFO
            wanted[topic] = min(level, wanted.get(topic, level))
    return wanted


def set_logs(spec: str = "") -> dict[str, str]:
    """Turn on exactly the topics in ``spec`` (a comma list as in ``LOOM_LOGS``) and off every other.

    Returns the topics now on with their level names. ``set_logs()`` (or ``""``) turns every topic off
    and gives the loggers back to the application's own logging configuration.
    """
    wanted = parse(spec)
    for topic, logger_name in TOPICS.items():
        logger = logging.getLogger(logger_name)
        if topic in wanted:
            logger.setLevel(wanted[topic])
            if _handler not in logger.handlers:
                logger.addHandler(_handler)
            logger.propagate = False
        elif topic in _enabled:
            logger.setLevel(logging.NOTSET)
            logger.removeHandler(_handler)
            logger.propagate = True
    _enabled.clear()
    _enabled.update(wanted)
    return {topic: logging.getLevelName(level) for topic, level in wanted.items()}


def enabled() -> dict[str, str]:
    """The topics :func:`set_logs` (or ``LOOM_LOGS``) turned on, with their level names."""
    return {topic: logging.getLevelName(level) for topic, level in _enabled.items()}


def init_from_env() -> None:
    """Apply ``LOOM_LOGS`` at import; a bad value warns instead of making ``import loom`` fail."""
    spec = os.environ.get(ENV_VAR, "")
    if not spec.strip():
        return
    try:
        set_logs(spec)
    except ValueError as exc:
        import warnings

        warnings.warn(f"{ENV_VAR} ignored: {exc}", RuntimeWarning, stacklevel=2)


def logger(topic: str) -> logging.Logger:
    """The logger of one topic."""
    return logging.getLogger(TOPICS[topic])
