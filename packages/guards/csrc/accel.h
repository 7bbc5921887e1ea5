// Private header of loom_guards._accel, the C++ accelerator of loom-guards: what its translation units
// share (module state, the instruction set, the program object, and the functions one unit calls in
// another).
//
// A GuardProgram is a flat list of instructions built by loom_guards/_lower.py from a compiled plan:
// "fetch" instructions read a source into a slot (each source once), "check" instructions test slots.
// Sources are read with the CPython C API; tensor metadata and torch's thread-local state are read
// straight from torch's C++ objects (TensorImpl, GradMode, ...), which is why the accelerator is built
// against the installed torch's headers and is only loaded by the exact torch version it was built for
// (loom_guards/compiler.py checks TORCH_VERSION).
//
// Semantics mirror the pure-Python back end exactly (tests run both): a check or a read that raises an
// Exception makes the program return False; a BaseException that is not an Exception propagates.
//
// Layout (one job each):
//   accel.h      this header
//   module.cpp   module glue: PyInit__accel, _init, the module state, OPS, TORCH_VERSION
//   program.cpp  the GuardProgram type: construction and validation, GC support, describe/why_failed
//   lower.cpp    building instructions (and tensor specs) from the tuples loom_guards/_lower.py makes
//   run.cpp      the check loop (the program's vectorcall), with the hot checks inlined
//   fetch.cpp    reading sources: dict and item lookups (version-tag cache), instance dicts, closures
//   values.cpp   value checks: type-strict constant equality, dict keys, membership in mappings, calls of
//                Python checks
//   tensor.h     tensor checks and reads (static: inlined into the check loop)
//   state.h      torch's global-state check and readers (static: inlined into the check loop)
//   state.cpp    building global-state specs; read_state
//
// Only torch's light c10 headers are included here: the heavy ones (python_variable.h, autocast) are
// in tensor.h and state.h, so that only the units that need them pay for compiling them.

#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <c10/core/Device.h>
#include <c10/core/DispatchKeySet.h>
#include <c10/core/ScalarType.h>

#include <cstdint>
#include <utility>
#include <vector>

#ifndef LOOM_TORCH_VERSION
#error "LOOM_TORCH_VERSION must be defined by the build (the torch version the headers belong to)"
#endif

// Everything below is private to the extension module (only PyInit__accel is exported).
#pragma GCC visibility push(hidden)

namespace loom_accel {

// ---------------------------------------------------------------------------------------------------
// Module state (set once by _init from Python; defined in module.cpp)

extern PyObject* g_tensor_type;       // torch.Tensor
extern PyObject* g_dtype_type;        // torch.dtype
extern PyObject* g_device_type;       // torch.device
extern PyObject* g_enum_type;         // enum.Enum
extern PyObject* g_identity_types;    // tuple of types compared by identity (torch.layout, ...)
extern PyObject* g_mapping_abc;       // collections.abc.Mapping

extern PyObject* s_f_locals;
extern PyObject* s_f_globals;
extern PyObject* s_f_builtins;
extern PyObject* s_closure;
extern PyObject* s_f_code;
extern PyObject* s_co_freevars;
extern PyObject* s_dict;
extern getter g_subtype_dict;  // the `__dict__` getter of ordinary Python classes
extern PyObject* s_getattribute;
extern getattrofunc g_getattr_hook;  // the tp_getattro of Python classes that define __getattr__

// ---------------------------------------------------------------------------------------------------
// Instructions, programs

enum Op : int {
  F_LOCAL = 0,
  F_GLOBAL,
  F_BUILTIN,
  F_CLOSURE,
  F_CONST,
  F_ATTR,
  F_ITEM,
  F_TYPE,
  F_MODMEMBER,
  F_TSIZE,
  F_DICTATTR,
  F_PYREAD,
  F_PYROOT,
  C_NONE,
  C_NOTNONE,
  C_TYPE,
  C_ID,
  C_CONST,
  C_LEN,
  C_DICTKEYS,
  C_DICTCONTAINS,
  C_TENSOR,
  C_STATE,
  C_NOALIAS,
  C_SAME,
  C_CONSTS,
  C_PY,
  C_EMPTYATTRS,
  OP_COUNT,
};

inline constexpr const char* OP_NAMES[] = {
    "F_LOCAL", "F_GLOBAL", "F_BUILTIN", "F_CLOSURE", "F_CONST",  "F_ATTR",     "F_ITEM",   "F_TYPE",
    "F_MODMEMBER", "F_TSIZE", "F_DICTATTR", "F_PYREAD", "F_PYROOT", "C_NONE",  "C_NOTNONE",  "C_TYPE",   "C_ID",
    "C_CONST", "C_LEN", "C_DICTKEYS", "C_DICTCONTAINS", "C_TENSOR", "C_STATE", "C_NOALIAS", "C_SAME", "C_CONSTS",
    "C_PY", "C_EMPTYATTRS",
};
static_assert(sizeof(OP_NAMES) / sizeof(OP_NAMES[0]) == OP_COUNT, "OP_NAMES out of date");

constexpr int64_t UNCHECKED = INT64_MIN;

struct TensorSpec {
  uint64_t keys = 0;
  at::ScalarType dtype = at::ScalarType::Undefined;
  c10::Device device{c10::DeviceType::CPU};
  bool requires_grad = false;
  std::vector<int64_t> sizes;    // UNCHECKED for a dynamic dimension
  bool check_strides = false;
  std::vector<int64_t> strides;  // UNCHECKED for a stride that is not checked
};

struct StateSpec {
  int grad_mode = -1;  // -1: not checked
  int inference_mode = -1;
  bool check_default_dtype = false;
  at::ScalarType default_dtype = at::ScalarType::Undefined;
  int deterministic = -1;
  int deterministic_warn_only = -1;
  bool check_autocast = false;
  // Autocast for a device is enabled exactly when its autocast dispatch key is not in the thread's
  // excluded set (that is what at::autocast::is_autocast_enabled reads): one TLS read covers them all.
  c10::DispatchKeySet autocast_mask;              // the autocast keys of every device looked at
  c10::DispatchKeySet autocast_excluded;          // the expected (excluded & mask)
  std::vector<std::pair<c10::DeviceType, at::ScalarType>> autocast_enabled;  // expected enabled ones
  int autocast_cache = -1;
  int torch_function = -1;  // 0 enabled, 1 subclasses disabled, 2 all disabled
  int64_t torch_function_modes = -1;
  int64_t dispatch_modes = -1;
  int functorch = -1;
  // at::Context settings; codes as in loom_guards/_lower.py (the last code of the first three: torch
  // refused to say, the legacy and new fp32_precision APIs having been mixed)
  int matmul_precision = -1;  // 0 highest, 1 high, 2 medium, 3 mixed
  int cublas_tf32 = -1;       // 0 off, 1 on, 2 mixed
  int cudnn_tf32 = -1;        // 0 off, 1 on, 2 mixed
  int fp16_reduction = -1;    // at::CuBLASReductionOption
  int bf16_reduction = -1;    // at::CuBLASReductionOption
  bool check_context = false;  // any of the at::Context settings above, or the deterministic flags
  int64_t num_threads = -1;
};

// C_CONSTS: the guards whose sources are all constants (loom_guards.Const), fused into one instruction
// by _lower.py. They read nothing from the frame, only the constants' current state (a module's hook
// dicts, a class's `__dict__`), so one pass over two compact arrays replaces a fetch and a check each.
struct ConstLen {  // len(obj) == n
  PyObject* obj;   // owned
  Py_ssize_t n;
  // obj's type (borrowed: obj holds it) when len() of it is the dict's own count and the type is
  // immutable (dict, OrderedDict): its slots cannot change, nor can obj's __class__, so comparing the
  // type is enough; else NULL
  PyTypeObject* dict_type;
};

struct ConstContains {  // (key in obj) == present, or (key in obj.__dict__) == present
  PyObject* obj;        // owned
  PyObject* key;        // owned
  bool present;
  bool class_dict;      // look in obj.__dict__ (a class's namespace, read directly when its metaclass is type)
};

struct ConstChecks {
  std::vector<ConstLen> lens;
  std::vector<ConstContains> contains;
};

struct Instr {
  int op = 0;
  int dst = -1;
  int src = -1;
  PyObject* obj = nullptr;   // owned
  PyObject* obj2 = nullptr;  // owned
  Py_ssize_t n = 0;
  bool weak = false;
  std::vector<int> slots;
  TensorSpec* tensor = nullptr;
  StateSpec* state = nullptr;
  ConstChecks* consts = nullptr;  // C_CONSTS
  // instance-dict reads (F_DICTATTR, F_MODMEMBER, F_ATTR of `__dict__`): the last type whose `__dict__`
  // (and, for F_ATTR, attribute lookup) was found to be the generic one, with the type's version tag at
  // the time (a type's attributes cannot change without a new tag)
  PyTypeObject* dict_type = nullptr;
  unsigned int dict_type_version = 0;
  // dict reads (str keys, not the per-call locals): the dict and its version tag when `key` was last
  // found there, and the value found (borrowed: an unmodified dict still holds it)
  PyObject* dc_dict = nullptr;
  uint64_t dc_version = 0;
  PyObject* dc_value = nullptr;
  // split-dict reads on 3.13 (dict_layout_313.h): the shared keys `key` was found in and its index
  // there; the value is read from the dict's values on every check
  void* dc_keys = nullptr;
  Py_ssize_t dc_index = -1;
  std::vector<Py_ssize_t> dc_slots;  // C_EMPTYATTRS: each name's slot in dc_keys
  // C_EMPTYATTRS: the entries found in dc_dict (borrowed, one per name) when it last passed
  std::vector<PyObject*> dc_values;
};

struct GuardProgram {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  std::vector<Instr>* code;
  Py_ssize_t nslots;
  PyObject* plan;      // the Python Plan: guards, describe, why_failed
  PyObject* g_fb;      // fallback globals (or NULL)
  PyObject* b_fb;      // fallback builtins dict (never NULL after init)
  PyObject* cl_fb;     // fallback closure mapping (or NULL)
  bool needs_globals;
  bool needs_builtins;
  bool needs_closure;
  bool cleared;  // by the GC: a cleared program has no checks left and must never pass
  PyObject* weakreflist;
};

// ---------------------------------------------------------------------------------------------------
// Functions shared between translation units

// Whether len(v) is the dict's own entry count (ma_used) for v of type tp: an exact dict, or a dict
// subclass whose length slots are still dict's - OrderedDict (a C subclass that keeps ma_used), a Python
// subclass without __len__. PyObject_Size asks sq_length first, then mp_length; a class that defines
// __len__ (even later: CPython updates the slots) has its own there, and so takes the generic path.
inline bool len_is_dict_size(PyTypeObject* tp) {
  if (tp == &PyDict_Type) {
    return true;
  }
  if (!PyType_FastSubclass(tp, Py_TPFLAGS_DICT_SUBCLASS)) {
    return false;
  }
  lenfunc dict_len = PyDict_Type.tp_as_mapping->mp_length;
  PySequenceMethods* sq = tp->tp_as_sequence;
  PyMappingMethods* mp = tp->tp_as_mapping;
  return (sq == nullptr || sq->sq_length == nullptr || sq->sq_length == dict_len) && mp != nullptr &&
      mp->mp_length == dict_len;
}

// len_is_dict_size for a type that cannot change (no later __len__, no new class): a dict of this type
// may be remembered and its length read as ma_used (OrderedDict, dict).
inline bool fixed_len_is_dict_size(PyTypeObject* tp) {
  return PyType_HasFeature(tp, Py_TPFLAGS_IMMUTABLETYPE) && len_is_dict_size(tp);
}

// fetch.cpp: reading sources. Each returns a new reference, or NULL with an exception set.
PyObject* cell_value(PyObject* cell);
PyObject* dict_get(PyObject* d, PyObject* key, Instr* cache);
PyObject* item_get(PyObject* base, PyObject* key, Instr* cache);
PyObject* instance_dict(PyObject* obj, Instr& in);
PyObject* attr_dict(PyObject* obj, Instr& in);
PyObject* fetch_closure(Instr& in, PyObject* cells, PyObject* code, PyObject* closure_map);
// C_EMPTYATTRS: `len(obj.__dict__[name]) == 0` for every name of in.obj; 1 / 0 / -1 (an exception is set)
int check_empty_attrs(Instr& in, PyObject* obj);

// Mapping lookup without side effects for dicts: new reference, or NULL (KeyError raised when missing).
inline PyObject* mapping_get(PyObject* mapping, PyObject* key, Instr* cache) {
  if (PyDict_CheckExact(mapping)) {
    return dict_get(mapping, key, cache);
  }
  return PyObject_GetItem(mapping, key);
}

// values.cpp: value checks, each 1 (passed), 0 (failed) or -1 (an exception is set).
int const_eq(PyObject* v, PyObject* e);
int check_dict_keys(const Instr& in, PyObject* v);
int check_mapping_contains(const Instr& in, PyObject* v);  // C_DICTCONTAINS on anything but an exact dict
int mapping_contains(PyObject* v, PyObject* key, bool present);  // the same, for any v
int check_consts(const ConstChecks& c);                         // C_CONSTS
int call_check(PyObject* fn, PyObject** slots, const std::vector<int>& which);

// lower.cpp: building a program's instructions.
int parse_instr(PyObject* t, Instr& in, Py_ssize_t nslots);
void clear_instr(Instr& in);
bool parse_dtype(PyObject* obj, at::ScalarType* out);

// state.cpp: global-state specs, and the state as the accelerator reads it (module function).
StateSpec* parse_state_spec(PyObject* t);
PyObject* accel_read_state(PyObject* module, PyObject* args);

// run.cpp: calling a program (its vectorcall slot).
PyObject* program_vectorcall(PyObject* self_, PyObject* const* args, size_t nargsf, PyObject* kwnames);

// program.cpp: the GuardProgram type.
PyObject* make_program_type();

}  // namespace loom_accel

#pragma GCC visibility pop
