"""loom_symbolic's modules import one another without a cycle (see docs/symbolic.md, "The floors").

Every import statement counts, inside functions too, and every ``importlib.import_module`` call;
``if TYPE_CHECKING:`` imports do not run and ``loom_symbolic/__init__.py`` only re-exports, so they do not.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import loom_symbolic

PACKAGE = Path(loom_symbolic.__file__).parent
_TOOL = PACKAGE.parents[3] / "tools" / "import_layers.py"


def _tool():
    spec = importlib.util.spec_from_file_location("import_layers", _TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: The floors (docs/symbolic.md): a module imports only from its own floor and the floors below.
FLOORS = {
    0: ["errors", "policy", "grad_switches", "bytecode_helpers", "shapes", "fake_rules", "write_overlap", "fake_mode", "aliasing", "guard_collector", "provenance",
        "instructions", "program_state", "results", "subgraphs", "func_calls", "versions", "versions.py311", "versions.py312",
        "versions.py313",
        "polyfills", "polyfills.registry", "polyfills.builtins", "polyfills.collections", "polyfills.copy", "polyfills.exceptions",
        "polyfills.functools", "polyfills.heapq", "polyfills.introspection", "polyfills.bisect", "polyfills.types", "polyfills.itertools", "polyfills.math", "polyfills.operator",
        "polyfills.os", "polyfills.torch_function", "polyfills.torch_fx", "polyfills.torch_shapes", "polyfills.text_format", "polyfills.subclasses", "keyword_calls", "graph_constants", "assert_op", "operand_errors", "entry_layouts",
        "object_dicts", "made_once", "per_call_loads", "per_call_classes"],
    1: ["variables.base", "variables.registry", "variables.protocol"],
    2: ["variables.methods", "variables.constant", "variables.symbolic_scalars", "variables.cells", "variables.deferred_calls", "variables.logger_calls", "variables.enums", "variables.recursive_repr", "variables.single_dispatch", "variables.item_sources", "variables.environ",
        "variables.functions", "variables.code_matched_functions", "variables.function_closures", "variables.nested_functions", "variables.attributes", "variables.containers", "variables.container_tables", "variables.mappings", "variables.value_keys",
        "variables.sequences", "variables.sets", "variables.lazy_dict", "variables.lazy_list", "variables.list_protocol", "variables.library_globals",
        "variables.arguments", "variables.exception_values", "variables.exception_groups", "variables.exception_star", "variables.exception_tracebacks", "variables.iterators", "variables.iterator_methods", "variables.stop_carrying", "variables.outside_sourced", "variables.outside_iterators", "variables.generators", "variables.yield_from_delegates",
        "variables.tensor", "variables.new_objects", "variables.resumed_loops", "variables.symbolic_ranges", "variables.passed_on", "variables.ctx", "variables.operator_semantics", "variables.operand_dispatch", "variables.partial",
        "variables.random_draws", "variables.default_dtype", "variables.folded_queries", "variables.class_lookups",
        "variables.object_ids", "variables.class_deletions", "variables.method_arity", "variables.specialising", "variables.immutable_unbound",
        "variables.flagged_tensor_classes", "variables.folded_identity", "variables.reversed_lists", "variables.real_object_stores",
        "variables.warnings_blocks", "variables.tensor_truth", "variables.one_hop_skip", "variables.subclass_lists",
        "variables.classmethod_chain", "variables.compile_calls",
        "variables.class_lies", "variables.slot_errors", "variables.generic_attribute_methods", "variables.replaced_attributes", "variables.slotted_instance_dicts"],
    3: ["variables.builtins", "variables.frame_locals", "variables.process_constants", "variables.operator_builtins", "variables.text", "variables.number_conversions", "variables.builtin_type_calls", "variables.regex", "variables.format_parsing", "variables.real_objects", "variables.super_proxy", "variables.torch",
        "variables.numpy", "variables.numpy_to_tensor", "variables.numpy_calls", "variables.numpy_floats", "variables.numpy_operators", "variables.nn_module", "variables.module_tables",
        "variables.module_hooks", "variables.made_leaves", "variables.distributed", "variables.autograd_function", "variables.autograd_function_objects", "variables.autograd_function_arguments", "variables.autograd_function_outputs", "variables.polyfilled", "variables.str_subclasses", "variables.int_subclasses", "variables.float_subclasses", "variables.value_subclasses",
        "variables.profiler", "variables.autocast", "variables.device_ctx", "variables.sdpa_kernel", "variables.dual_level", "variables.inference_mode", "variables.torch_function_state", "variables.function_modes", "variables.foreach_groups", "variables.saved_hooks", "variables.disable_calls", "variables.higher_order",
        "variables.ctx_instances", "variables.deferred_warnings", "variables.deferred_prints", "variables.graph_prints",
        "variables.checkpointing", "variables.checkpoint_rng", "variables.control_flow", "variables.hop_regions", "variables.scans", "variables.func_transforms", "variables.functional_call", "variables.legacy_functorch", "variables.small_tensors", "variables.tensor_from_items", "variables.tensor_keyed", "variables.weak_keyed", "variables.tensor_copies", "variables.container_methods", "variables.container_method_kit",
        "variables.sequence_methods", "variables.dict_methods", "variables.set_methods", "variables.weakrefs", "variables.hashing", "variables.bytearrays", "variables.user_hash_keys", "variables.id_keys", "variables.dir_names", "variables.object_id_calls", "variables.percent_objects", "variables.mapping_proxy", "variables.extremes", "variables.exception_state", "variables.wrap_rules", "variables.cycle_shells", "variables.overriding_containers",
        "variables.known_hasattr", "variables.imports", "variables.index_arguments",
        "variables.catalogue", "variables.new_parameters", "variables.hook_handles", "variables.tensor_hooks", "variables.backward_leaf_hooks", "variables.tensor_backward", "variables.autograd_grad", "variables.tensor_versions", "variables.tensor_bases", "variables.torch_rng_calls", "variables.asked_state", "variables.out_resizes", "variables.generator_draws", "variables.made_buffers", "variables.seeded_random", "variables.frame_generators", "variables.requires_grad", "variables.lazy_modules",
        "variables.body_escapes", "variables.body_writes", "variables.cond_merged_sizes", "variables.pytree_user_nodes", "variables.generator_drops", "variables.dict_operators", "variables.operator_dunders", "variables.getitem_iteration",
        "variables.typing_forms", "variables.globals_dict", "variables.module_globals", "variables.legacy_tensor_types", "variables.legacy_type_checks", "variables.tensor_iter_method", "variables.tensor_subclasses",
        "variables.outside_wrapping_iterators", "variables.outside_count", "variables.outside_values_iterators",
        "variables.outside_operator_callables", "variables.script_functions", "variables.base_hops", "variables.function_globals",
        "variables.subclass_construction", "variables.tensor_super", "variables.overrides_queries", "variables.warnings_filters", "variables.decimals",
        "variables.tuple_keys", "variables.dict_view_algebra", "variables.constant_tuple_methods",
        "variables.constant_set_methods", "variables.constant_python_methods", "variables.instance_checks", "variables.subclass_checks", "variables.abc_registry", "variables.slot_descriptors", "variables.object_frozensets",
        "variables.method_equality", "variables.identity_hashes", "variables.value_subclass_keys", "variables.same_object_results", "variables.object_slot_methods", "variables.container_text_methods", "variables.dict_construction", "variables.property_methods", "variables.cell_comparisons",
        "variables.builtin_alternate_constructors", "variables.real_str_subclasses", "variables.deterministic_switch"],
    4: ["output_graph", "node_effects", "storage_guards", "side_effects", "codegen", "resume", "breaks"],
    5: ["opcodes", "opcodes.registry", "opcodes.dispatch", "opcodes.build", "opcodes.calls", "opcodes.control",
        "opcodes.exception_opcodes", "opcodes.matching", "opcodes.names", "opcodes.operator_opcodes", "opcodes.stack",
        "opcodes.py311", "opcodes.py312", "opcodes.py313",
        "opcodes.class_definitions", "opcodes.class_hooks", "opcodes.new_class_calls", "opcodes.class_closures", "opcodes.class_bodies", "opcodes.class_per_call", "opcodes.asserts"],
    6: ["translator"],
    7: ["api"],
}


def _graph():
    return _tool().import_graph(PACKAGE, facades=["loom_symbolic"])


def test_the_cycle_finder_finds_a_cycle():
    assert _tool().cycles({"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set()}) == [["a", "b", "c"]]


def test_no_import_cycle():
    assert _tool().cycles(_graph()) == []


def test_every_import_stays_on_its_floor_or_goes_down():
    floor_of = {f"loom_symbolic.{name}": floor for floor, names in FLOORS.items() for name in names}
    assert _tool().upward_imports(_graph(), floor_of) == []


def test_the_floor_check_sees_an_import_going_up():
    graph = {"low": {"high"}, "high": set()}
    assert _tool().upward_imports(graph, {"low": 0, "high": 1}) == ["low (F0) -> high (F1)"]


def test_no_module_over_600_lines():
    sizes = {str(p.relative_to(PACKAGE)): len(p.read_text().splitlines()) for p in PACKAGE.rglob("*.py")}
    assert {name: n for name, n in sizes.items() if n > 600} == {}

