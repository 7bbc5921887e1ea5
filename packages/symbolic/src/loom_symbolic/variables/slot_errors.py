"""The AttributeError of storing a name outside the slots on an instance of a ``__slots__`` class without a
``__dict__`` (its wording differs between versions: taken from a probe instance)."""

from __future__ import annotations

from ..errors import Unsupported, UserError


def no_attribute_to_set(cls: type, name: str) -> UserError | Unsupported:
    """Python's AttributeError for storing ``name``, outside the slots, on an instance of a ``__slots__``
    class without a ``__dict__`` (its message differs between versions: taken from a probe instance)."""
    try:
        object.__setattr__(object.__new__(cls), name, None)
    except AttributeError as exc:
        return UserError(f"setting {name!r}", str(exc), exc_type=AttributeError, exc_args=exc.args)
    except Exception:  # a class object.__new__ cannot make: say so instead
        pass
    return Unsupported(f"setting {name!r} on a {cls.__name__} made while tracing", "the class has no __dict__")
