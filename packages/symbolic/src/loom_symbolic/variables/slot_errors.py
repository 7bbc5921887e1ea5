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


def read_only_to_delete(cls: type, name: str) -> UserError:
    """Python's AttributeError for ``del obj.name`` on an instance without a ``__dict__`` whose class has ``name``
    as a plain attribute: "'C' object attribute 'name' is read-only"."""
    message = f"{cls.__name__!r} object attribute {name!r} is read-only"
    return UserError(f"deleting {name!r}", message, exc_type=AttributeError, exc_args=(message,),
                     exc_attrs={"name": None, "obj": None})


def object_init_refusal(cls: type) -> UserError | None:
    """The TypeError ``object.__init__(obj, *args)`` raises for arguments, ``obj`` of class ``cls``, as CPython's
    ``object_init`` decides: where the class overrides ``__init__``, or keeps ``object.__new__`` too; None where
    it leaves them (to a ``__new__`` of the class's own)."""
    if getattr(cls, "__init__", None) is not object.__init__:
        message = "object.__init__() takes exactly one argument (the instance to initialize)"
    elif getattr(cls, "__new__", None) is object.__new__:
        message = f"{cls.__name__}.__init__() takes exactly one argument (the instance to initialize)"
    else:
        return None
    return UserError("object.__init__()", message, exc_type=TypeError, exc_args=(message,))
