"""What the compiled code runs for a class made on each call (``opcodes.class_per_call``), and for its functions.

``PyCodegen.load_const`` of such a class's template pushes this call's class instead: ``__build_class__`` on the
body again, with the real cells standing for the trace's boxes (``PyCodegen.load_cell``: the frame's own, a
resume function's handed-in ones, a fresh one for an inlined function's cell), once per run of the code, kept in
a temporary so that every instance and name of one call share it. A function of the template's namespace (a
bound method rebuilt after the graph) is read from this call's class. Where a cell has no real cell to hand over,
the translation breaks at the class statement instead (``retry_at``).
"""

from __future__ import annotations

from typing import Any

from .bytecode_helpers import class_of_this_call, class_of_type_call
from .errors import Unsupported
from .made_once import per_call, per_call_part
from .per_call_classes import made_per_call


def load_made_per_call(codegen: Any, value: Any) -> bool:
    """Push what ``value`` stands for in this call where it is a template made on each call (or a function of
    one) and say True; False (nothing pushed) for any other value."""
    recipe = per_call(value)
    if recipe is not None:
        _load_class_of_this_call(codegen, recipe)
        return True
    if made_per_call(value):  # a class of one call, met after a graph break: this call's, where it is matched
        found = codegen.made_sources.get(id(value))
        if found is None or found[0] is not value:
            return False  # (guarded by identity: the constant is this call's)
        codegen.load_source(found[1])
        return True
    part = per_call_part(value)
    if part is None:
        return False
    codegen.load_const(part[0])  # this call's class, then its namespace's entry (and the function it wraps)
    codegen.emit("LOAD_ATTR", "__dict__")
    codegen.emit("LOAD_CONST", part[1])
    codegen.emit("BINARY_SUBSCR")
    if part[2] is not None:
        codegen.emit("LOAD_ATTR", part[2])
    return True


def _load_class_of_this_call(codegen: Any, recipe: Any) -> None:
    key = id(recipe)  # (the temporaries' table forgets it with the rest on a rollback)
    if key in codegen._temps:
        codegen.emit("LOAD_FAST", codegen._temps[key])
        return
    if recipe.namespace is not None:  # type(name, bases, namespace)
        codegen.load_callable(class_of_type_call)
        codegen.emit("LOAD_CONST", recipe.name)
        _load_bases(codegen, recipe)
        codegen.emit("LOAD_CONST", recipe.namespace)
        codegen.call(3)
        _keep(codegen, key)
        return
    codegen.load_callable(class_of_this_call)
    codegen.emit("LOAD_CONST", recipe.code)
    codegen.emit("LOAD_CONST", recipe.f_globals)
    try:
        for box in recipe.boxes:
            codegen.load_cell(box, recipe.name)
    except Unsupported as exc:
        error = Unsupported(f"class {recipe.name}", "its methods read values of each call, so each call makes it "
                            f"again, which this code cannot do ({exc.reason.what}: {exc.reason.why})",
                            hint="make the class at module level and pass the values to its methods")
        error.retry_at = recipe.made_at
        raise error from exc
    codegen.emit("BUILD_TUPLE", len(recipe.boxes))
    codegen.emit("LOAD_CONST", recipe.name)
    _load_bases(codegen, recipe)
    codegen.emit("LOAD_CONST", recipe.decorators)
    codegen.call(6)
    _keep(codegen, key)


def _load_bases(codegen: Any, recipe: Any) -> None:
    for base in recipe.bases:
        codegen.load_const(base)
    codegen.emit("BUILD_TUPLE", len(recipe.bases))


def _keep(codegen: Any, key: int) -> None:
    """Keep the class just made in a temporary: every reference of this run is one class."""
    name = codegen.new_temp()
    codegen.emit("COPY", 1)
    codegen.emit("STORE_FAST", name)
    codegen._temps[key] = name
