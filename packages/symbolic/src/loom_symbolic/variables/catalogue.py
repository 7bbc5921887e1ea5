"""Every module of the variables, imported once: loading this fills the registries they extend.

The modules of the lower floors own tables that the modules above fill when they are imported: the
wrap rules (:mod:`.registry`, filled by :mod:`.wrap_rules`), the builtin handlers (``@builtin`` in
:mod:`.builtins`, also used by :mod:`.objects` and :mod:`.super`), the container method tables
(:mod:`.containers`, filled by :mod:`.container_methods`), the tensor methods (:mod:`.tensor`, filled by
:mod:`.torch`) and the operators on NumPy values (:mod:`.operators`, filled by :mod:`.numpy`). The
translator imports this module, so that value kinds only some programs reach (generators, ``super()``,
objects made while tracing, environment reads) load with it, not in the middle of a later first compile.
"""

from __future__ import annotations

from . import (  # noqa: F401
    autograd_function,
    builtins,
    checkpointing,
    container_methods,
    control_flow,
    ctx,
    ctx_instances,
    deferred_prints,
    deferred_warnings,
    dict_operators,
    distributed,
    environ,
    exception_groups,
    exception_star,
    exception_state,
    extremes,
    format_parsing,
    frame_generators,
    func_transforms,
    functional_call,
    generators,
    getitem_iteration,
    globals_dict,
    hashing,
    hook_handles,
    known_hasattr,
    legacy_functorch,
    legacy_tensor_types,
    made_buffers,
    mapping_proxy,
    module_hooks,
    new_objects,
    new_parameters,
    nn_module,
    number_conversions,
    numpy,
    numpy_operators,
    operator_builtins,
    operator_dunders,
    overriding_containers,
    partial,
    polyfilled,
    profiler,
    random_draws,
    real_objects,
    regex,
    requires_grad,
    seeded_random,
    str_subclasses,
    super_proxy,
    tensor_copies,
    tensor_hooks,
    tensor_keyed,
    tensor_subclasses,
    text,
    torch,
    typing_forms,
    weakrefs,
    wrap_rules,
)
