"""``os.fspath``: a path-like object's file-system representation (``posix.fspath`` is C), as CPython's
own Python version of it in ``os.py`` reads, with the same errors."""

from __future__ import annotations

import os as _os
from typing import Any

from .registry import polyfill


@polyfill(_os.fspath)
def fspath(path: Any) -> Any:
    """``os.fspath(path)``: ``path`` if it is a str or bytes, else what its type's ``__fspath__`` returns."""
    if isinstance(path, (str, bytes)):
        return path
    path_type = type(path)
    try:
        path_repr = path_type.__fspath__(path)
    except AttributeError:
        if hasattr(path_type, "__fspath__"):
            raise
        raise TypeError(f"expected str, bytes or os.PathLike object, not {path_type.__name__}") from None
    if isinstance(path_repr, (str, bytes)):
        return path_repr
    raise TypeError(f"expected {path_type.__name__}.__fspath__() to return str or bytes, "
                    f"not {type(path_repr).__name__}")
