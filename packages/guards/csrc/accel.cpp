// loom_guards._accel: the C++ accelerator of loom-guards.
//
// A GuardProgram is a flat list of instructions built by loom_guards/_lower.py from a compiled plan:
// "fetch" instructions read a source into a slot (each source once), "check" instructions test slots.
// Sources are read with the CPython C API; tensor metadata and torch's thread-local state are read
// straight from torch's C++ objects (TensorImpl, GradMode, ...), which is why this file is built
// against the installed torch's headers and is only loaded by the exact torch version it was built for
// (loom_guards/compiler.py checks TORCH_VERSION).
//
// Semantics mirror the pure-Python back end exactly (tests run both): a check or a read that raises an
// Exception makes the program return False; a BaseException that is not an Exception propagates.

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include <ATen/Context.h>
#include <ATen/PythonTorchFunctionTLS.h>
#include <ATen/autocast_mode.h>
#include <c10/core/DefaultDtype.h>
#include <c10/core/GradMode.h>
#include <c10/core/InferenceMode.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <c10/core/impl/TorchDispatchModeTLS.h>
#include <torch/csrc/Device.h>
#include <torch/csrc/Dtype.h>
#include <torch/csrc/autograd/python_variable.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#ifndef LOOM_TORCH_VERSION
#error "LOOM_TORCH_VERSION must be defined by the build (the torch version the headers belong to)"
#endif

namespace {

// ---------------------------------------------------------------------------------------------------
// Module state (set once by _init from Python)

PyObject* g_tensor_type = nullptr;       // torch.Tensor
PyObject* g_dtype_type = nullptr;        // torch.dtype
PyObject* g_device_type = nullptr;       // torch.device
PyObject* g_enum_type = nullptr;         // enum.Enum
PyObject* g_identity_types = nullptr;    // tuple of types compared by identity (torch.layout, ...)
PyObject* g_mapping_abc = nullptr;       // collections.abc.Mapping

PyObject* s_f_locals = nullptr;
PyObject* s_f_globals = nullptr;
PyObject* s_f_builtins = nullptr;
PyObject* s_closure = nullptr;
PyObject* s_f_code = nullptr;
PyObject* s_co_freevars = nullptr;
PyObject* s_dict = nullptr;
getter g_subtype_dict = nullptr;  // the `__dict__` getter of ordinary Python classes

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
  C_TENSOR,
  C_STATE,
  C_NOALIAS,
  C_PY,
  OP_COUNT,
};

const char* const OP_NAMES[] = {
    "F_LOCAL", "F_GLOBAL", "F_BUILTIN", "F_CLOSURE", "F_CONST",  "F_ATTR",     "F_ITEM",   "F_TYPE",
    "F_MODMEMBER", "F_TSIZE", "F_DICTATTR", "F_PYREAD", "F_PYROOT", "C_NONE",  "C_NOTNONE",  "C_TYPE",   "C_ID",
    "C_CONST", "C_LEN", "C_DICTKEYS", "C_TENSOR", "C_STATE", "C_NOALIAS", "C_PY",
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
  // instance-dict reads: the last type whose `__dict__` was found to be the generic one, with the
  // type's version tag at the time (a type's attributes cannot change without a new tag)
  PyTypeObject* dict_type = nullptr;
  unsigned int dict_type_version = 0;
  // dict reads (str keys, not the per-call locals): the dict and its version tag when `key` was last
  // found there, and the value found (borrowed: an unmodified dict still holds it)
  PyObject* dc_dict = nullptr;
  uint64_t dc_version = 0;
  PyObject* dc_value = nullptr;
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
// Helpers

inline PyObject* deref(const Instr& in) {
  // Borrowed: the referent of a weak reference (Py_None once it died) or the strong object.
  if (!in.weak) {
    return in.obj;
  }
#if PY_VERSION_HEX >= 0x030D0000
  PyObject* obj = nullptr;
  if (PyWeakref_GetRef(in.obj, &obj) <= 0) {
    PyErr_Clear();
    return Py_None;
  }
  Py_DECREF(obj);  // only compared by address while a slot keeps the candidate alive
  return obj;
#else
  return PyWeakref_GET_OBJECT(in.obj);
#endif
}

inline int float_eq(double a, double b) {
  if (a == b) {
    return (a != 0.0 || std::signbit(a) == std::signbit(b)) ? 1 : 0;
  }
  return (std::isnan(a) && std::isnan(b)) ? 1 : 0;
}

// Type-strict equality with a constant; mirrors loom_guards.guards.const_eq. 1 / 0 / -1 (error).
int const_eq(PyObject* v, PyObject* e) {
  if (v == e) {
    return 1;
  }
  PyTypeObject* tp = Py_TYPE(e);
  if (Py_TYPE(v) != tp) {
    return 0;
  }
  if (tp == &PyLong_Type || tp == &PyUnicode_Type || tp == &PyBytes_Type) {
    return PyObject_RichCompareBool(v, e, Py_EQ);
  }
  if (tp == &PyFloat_Type) {
    return float_eq(PyFloat_AS_DOUBLE(v), PyFloat_AS_DOUBLE(e));
  }
  if (tp == &PyComplex_Type) {
    Py_complex a = PyComplex_AsCComplex(v);
    Py_complex b = PyComplex_AsCComplex(e);
    return float_eq(a.real, b.real) && float_eq(a.imag, b.imag);
  }
  if (PyTuple_Check(e)) {
    Py_ssize_t n = PyTuple_GET_SIZE(e);
    if (PyTuple_GET_SIZE(v) != n) {
      return 0;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
      int r = const_eq(PyTuple_GET_ITEM(v, i), PyTuple_GET_ITEM(e, i));
      if (r != 1) {
        return r;
      }
    }
    return 1;
  }
  if (tp == &PyBool_Type || e == Py_None || e == Py_Ellipsis) {
    return 0;  // singletons: identity already failed
  }
  if (PyType_IsSubtype(tp, reinterpret_cast<PyTypeObject*>(g_enum_type))) {
    return 0;
  }
  Py_ssize_t nid = PyTuple_GET_SIZE(g_identity_types);
  for (Py_ssize_t i = 0; i < nid; i++) {
    if (reinterpret_cast<PyObject*>(tp) == PyTuple_GET_ITEM(g_identity_types, i)) {
      return 0;
    }
  }
  return PyObject_RichCompareBool(v, e, Py_EQ);
}

// Value of a closure cell (or the object itself when it is not a cell); new reference or NULL
// (NULL without an exception means "cannot be read").
PyObject* cell_value(PyObject* cell) {
  if (PyCell_Check(cell)) {
    PyObject* v = PyCell_GET(cell);
    if (v == nullptr) {
      PyErr_SetString(PyExc_ValueError, "empty closure cell");
      return nullptr;
    }
    Py_INCREF(v);
    return v;
  }
  Py_INCREF(cell);
  return cell;
}

#if PY_VERSION_HEX < 0x030E0000
// CPython (3.11-3.13) gives every dict state a unique version tag: a new dict and every modification
// get a fresh value from a global counter. The same dict object with the same tag holds the same
// entries, so a lookup made in that state can be reused.
#define LOOM_DICT_VERSIONS 1
inline uint64_t dict_version(PyObject* d) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  return reinterpret_cast<PyDictObject*>(d)->ma_version_tag;
#pragma GCC diagnostic pop
}
#else
#define LOOM_DICT_VERSIONS 0
#endif

// d[key] for an exact dict, without side effects: new reference, or NULL with KeyError (or another
// error) set. With `cache`, a str key's lookup is remembered against the dict's version tag.
PyObject* dict_get(PyObject* d, PyObject* key, Instr* cache) {
#if LOOM_DICT_VERSIONS
  if (cache != nullptr && d == cache->dc_dict && dict_version(d) == cache->dc_version) {
    Py_INCREF(cache->dc_value);
    return cache->dc_value;
  }
#endif
  PyObject* v = PyDict_GetItemWithError(d, key);
  if (v == nullptr) {
    if (!PyErr_Occurred()) {
      PyErr_SetObject(PyExc_KeyError, key);
    }
    return nullptr;
  }
#if LOOM_DICT_VERSIONS
  if (cache != nullptr && PyUnicode_CheckExact(key)) {  // a str lookup runs no user code
    cache->dc_dict = d;
    cache->dc_version = dict_version(d);
    cache->dc_value = v;
  }
#endif
  Py_INCREF(v);
  return v;
}

// Mapping lookup without side effects for dicts: new reference, or NULL (KeyError raised when missing).
PyObject* mapping_get(PyObject* mapping, PyObject* key, Instr* cache) {
  if (PyDict_CheckExact(mapping)) {
    return dict_get(mapping, key, cache);
  }
  return PyObject_GetItem(mapping, key);
}

// base[key] as loom_guards.sources.get_item does it: exact dicts, lists and tuples directly, dict
// subclasses that keep dict's __getitem__ without running __missing__, the rest by __getitem__.
PyObject* item_get(PyObject* base, PyObject* key, Instr* cache) {
  PyTypeObject* tp = Py_TYPE(base);
  if ((tp == &PyTuple_Type || tp == &PyList_Type) && PyLong_CheckExact(key)) {
    Py_ssize_t i = PyLong_AsSsize_t(key);
    if (i == -1 && PyErr_Occurred()) {
      return nullptr;
    }
    Py_ssize_t n = Py_SIZE(base);
    if (i < 0) {
      i += n;
    }
    if (i < 0 || i >= n) {
      PyErr_SetString(PyExc_IndexError, "index out of range");
      return nullptr;
    }
    PyObject* v = tp == &PyTuple_Type ? PyTuple_GET_ITEM(base, i) : PyList_GET_ITEM(base, i);
    Py_INCREF(v);
    return v;
  }
  if (tp == &PyDict_Type) {
    return dict_get(base, key, cache);
  }
  if (PyDict_Check(base) && tp->tp_as_mapping != nullptr &&
      tp->tp_as_mapping->mp_subscript == PyDict_Type.tp_as_mapping->mp_subscript) {
    return dict_get(base, key, nullptr);  // a dict subclass keeping dict's __getitem__: no __missing__
  }
  return PyObject_GetItem(base, key);
}

// obj.__dict__ (new reference): the generic instance dict when the class does not override
// `__dict__` (checked once per type version), else whatever `obj.__dict__` returns.
PyObject* instance_dict(PyObject* obj, Instr& in) {
  PyTypeObject* tp = Py_TYPE(obj);
  if (tp == in.dict_type && tp->tp_version_tag == in.dict_type_version &&
      (tp->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG)) {
    return PyObject_GenericGetDict(obj, nullptr);
  }
  PyObject* descr = _PyType_Lookup(tp, s_dict);
  if (descr != nullptr && (tp->tp_flags & Py_TPFLAGS_MANAGED_DICT) && Py_IS_TYPE(descr, &PyGetSetDescr_Type) &&
      reinterpret_cast<PyGetSetDescrObject*>(descr)->d_getset->get == g_subtype_dict) {
    if (tp->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG) {
      in.dict_type = tp;
      in.dict_type_version = tp->tp_version_tag;
    }
    return PyObject_GenericGetDict(obj, nullptr);
  }
  return PyObject_GetAttr(obj, s_dict);
}

bool is_tensor(PyObject* v) {
  return PyObject_TypeCheck(v, reinterpret_cast<PyTypeObject*>(g_tensor_type));
}

// ---------------------------------------------------------------------------------------------------
// Tensors and global state

int check_tensor(const TensorSpec& spec, PyObject* v) noexcept {
  // The caller checked the exact Python type, so v is a THPVariable.
  try {
    const at::Tensor& t = THPVariable_Unpack(v);
    c10::TensorImpl* impl = t.unsafeGetTensorImpl();
    if (impl == nullptr) {
      return 0;
    }
    if (impl->key_set().raw_repr() != spec.keys) {
      return 0;
    }
    if (impl->dtype().toScalarType() != spec.dtype) {
      return 0;
    }
    if (impl->requires_grad() != spec.requires_grad) {
      return 0;
    }
    c10::Device dev = impl->device();
    if (dev.type() != spec.device.type() || dev.index() != spec.device.index()) {
      return 0;
    }
    c10::SymIntArrayRef sizes = impl->sym_sizes();
    size_t ndim = spec.sizes.size();
    if (sizes.size() != ndim) {
      return 0;
    }
    for (size_t i = 0; i < ndim; i++) {
      int64_t want = spec.sizes[i];
      if (want == UNCHECKED) {
        continue;
      }
      auto got = sizes[i].maybe_as_int();
      if (!got.has_value() || *got != want) {
        return 0;
      }
    }
    if (spec.check_strides) {
      c10::SymIntArrayRef strides = impl->sym_strides();
      if (strides.size() != ndim) {
        return 0;
      }
      for (size_t i = 0; i < ndim; i++) {
        int64_t want = spec.strides[i];
        if (want == UNCHECKED) {
          continue;
        }
        auto got = strides[i].maybe_as_int();
        if (!got.has_value() || *got != want) {
          return 0;
        }
      }
    }
    return 1;
  } catch (...) {
    // A tensor whose metadata cannot be read (custom size policies that raise, no device...) fails.
    if (PyErr_Occurred()) {
      PyErr_Clear();
    }
    return 0;
  }
}

int torch_function_state() {
  switch (at::impl::PythonTorchFunctionTLS::get_disabled_state()) {
    case at::impl::TorchFunctionDisabledState::ENABLED:
      return 0;
    case at::impl::TorchFunctionDisabledState::SUBCLASSES_DISABLED:
      return 1;
    case at::impl::TorchFunctionDisabledState::ALL_DISABLED:
      return 2;
  }
  return -1;
}

bool functorch_active(const c10::impl::LocalDispatchKeySet& tls) {
  return tls.included_.has(c10::DispatchKey::FuncTorchDynamicLayerFrontMode) ||
      tls.included_.has(c10::DispatchKey::FuncTorchDynamicLayerBackMode);
}

int check_state(const StateSpec& s) noexcept {
  try {
    if (s.grad_mode >= 0 || s.inference_mode >= 0) {
      const c10::AutogradState& ag = c10::AutogradState::get_tls_state();
      if (s.grad_mode >= 0 && static_cast<int>(ag.get_grad_mode()) != s.grad_mode) {
        return 0;
      }
      if (s.inference_mode >= 0 && static_cast<int>(ag.get_inference_mode()) != s.inference_mode) {
        return 0;
      }
    }
    if (s.check_autocast || s.functorch >= 0) {
      c10::impl::LocalDispatchKeySet tls = c10::impl::tls_local_dispatch_key_set();
      if (s.check_autocast) {
        if ((tls.excluded_ & s.autocast_mask) != s.autocast_excluded) {
          return 0;
        }
        for (const auto& p : s.autocast_enabled) {
          if (at::autocast::get_autocast_dtype(p.first) != p.second) {
            return 0;
          }
        }
      }
      if (s.functorch >= 0 && static_cast<int>(functorch_active(tls)) != s.functorch) {
        return 0;
      }
    }
    if (s.check_default_dtype && c10::get_default_dtype().toScalarType() != s.default_dtype) {
      return 0;
    }
    if (s.deterministic >= 0 || s.deterministic_warn_only >= 0) {
      at::Context& ctx = at::globalContext();
      if (s.deterministic >= 0 && static_cast<int>(ctx.deterministicAlgorithms()) != s.deterministic) {
        return 0;
      }
      if (s.deterministic_warn_only >= 0 &&
          static_cast<int>(ctx.deterministicAlgorithmsWarnOnly()) != s.deterministic_warn_only) {
        return 0;
      }
    }
    if (s.autocast_cache >= 0 && static_cast<int>(at::autocast::is_autocast_cache_enabled()) != s.autocast_cache) {
      return 0;
    }
    if (s.torch_function >= 0 && torch_function_state() != s.torch_function) {
      return 0;
    }
    if (s.torch_function_modes >= 0 && at::impl::PythonTorchFunctionTLS::stack_len() != s.torch_function_modes) {
      return 0;
    }
    if (s.dispatch_modes >= 0 && c10::impl::TorchDispatchModeTLS::stack_len() != s.dispatch_modes) {
      return 0;
    }
    return 1;
  } catch (...) {
    return 0;
  }
}

// ---------------------------------------------------------------------------------------------------
// Running a program

struct Env {
  PyObject* frame = nullptr;   // borrowed: the argument
  PyObject* locals = nullptr;  // borrowed or owned (see owned_locals)
  PyObject* globals = nullptr;  // borrowed or owned
  PyObject* builtins = nullptr;
  PyObject* closure = nullptr;  // tuple of cells (owned) from a frame view
  PyObject* code = nullptr;     // owned, with closure
  PyObject* closure_map = nullptr;  // borrowed fallback mapping
  PyObject* owned[4] = {nullptr, nullptr, nullptr, nullptr};

  ~Env() {
    for (PyObject* o : owned) {
      Py_XDECREF(o);
    }
    Py_XDECREF(closure);
    Py_XDECREF(code);
  }
};

// Optional attribute of a frame view: new reference, NULL without error when absent or None.
int optional_attr(PyObject* frame, PyObject* name, PyObject** out) {
  PyObject* v = PyObject_GetAttr(frame, name);
  if (v == nullptr) {
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) {
      return -1;
    }
    PyErr_Clear();
    *out = nullptr;
    return 0;
  }
  if (v == Py_None) {
    Py_DECREF(v);
    *out = nullptr;
    return 0;
  }
  *out = v;
  return 0;
}

int setup_env(GuardProgram* self, PyObject* frame, Env& env) {
  env.frame = frame;
  env.globals = self->g_fb;
  env.builtins = self->b_fb;
  env.closure_map = self->cl_fb;
  if (PyDict_Check(frame)) {
    env.locals = frame;
    return 0;
  }
  PyObject* loc = PyObject_GetAttr(frame, s_f_locals);
  if (loc == nullptr) {
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) {
      return -1;
    }
    PyErr_Clear();
    int is_mapping = PyObject_IsInstance(frame, g_mapping_abc);
    if (is_mapping < 0) {
      return -1;
    }
    if (!is_mapping) {
      PyErr_Format(PyExc_TypeError,
                   "a guard needs a frame view (with f_locals) or a mapping of locals, got %s",
                   Py_TYPE(frame)->tp_name);
      return -1;
    }
    env.locals = frame;
    return 0;
  }
  env.owned[0] = loc;
  env.locals = loc;
  if (self->needs_globals) {
    PyObject* g = nullptr;
    if (optional_attr(frame, s_f_globals, &g) < 0) {
      return -1;
    }
    if (g != nullptr) {
      env.owned[1] = g;
      env.globals = g;
    }
  }
  if (self->needs_builtins) {
    PyObject* b = nullptr;
    if (optional_attr(frame, s_f_builtins, &b) < 0) {
      return -1;
    }
    if (b != nullptr) {
      env.owned[2] = b;
      env.builtins = PyModule_Check(b) ? PyModule_GetDict(b) : b;
    }
  }
  if (self->needs_closure) {
    PyObject* c = nullptr;
    if (optional_attr(frame, s_closure, &c) < 0) {
      return -1;
    }
    if (c != nullptr) {
      PyObject* code = nullptr;
      if (optional_attr(frame, s_f_code, &code) < 0) {
        Py_DECREF(c);
        return -1;
      }
      env.closure = c;
      env.code = code;
    }
  }
  return 0;
}

// The value of free variable `name` (index cache in in.n); new reference or NULL.
PyObject* fetch_closure(Instr& in, Env& env) {
  PyObject* name = in.obj;
  if (env.closure != nullptr) {
    if (!PyTuple_Check(env.closure) || env.code == nullptr) {
      PyErr_SetString(PyExc_TypeError, "frame view closure is not a tuple of cells with f_code");
      return nullptr;
    }
    PyObject* freevars = PyObject_GetAttr(env.code, s_co_freevars);
    if (freevars == nullptr) {
      return nullptr;
    }
    if (!PyTuple_Check(freevars)) {
      Py_DECREF(freevars);
      PyErr_SetString(PyExc_TypeError, "co_freevars is not a tuple");
      return nullptr;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(freevars);
    Py_ssize_t idx = in.n;
    bool hit = idx >= 0 && idx < n && PyTuple_GET_ITEM(freevars, idx) == name;
    if (!hit) {
      idx = -1;
      for (Py_ssize_t i = 0; i < n; i++) {
        int eq = PyObject_RichCompareBool(PyTuple_GET_ITEM(freevars, i), name, Py_EQ);
        if (eq < 0) {
          Py_DECREF(freevars);
          return nullptr;
        }
        if (eq) {
          idx = i;
          break;
        }
      }
      if (idx >= 0 && PyTuple_GET_ITEM(freevars, idx) == name) {
        in.n = idx;  // self-validating cache: only reused when the name is the same object
      }
    }
    Py_DECREF(freevars);
    if (idx < 0 || idx >= PyTuple_GET_SIZE(env.closure)) {
      PyErr_SetObject(PyExc_KeyError, name);
      return nullptr;
    }
    return cell_value(PyTuple_GET_ITEM(env.closure, idx));
  }
  if (env.closure_map == nullptr) {
    PyErr_SetObject(PyExc_KeyError, name);
    return nullptr;
  }
  PyObject* cell = mapping_get(env.closure_map, name, nullptr);
  if (cell == nullptr) {
    return nullptr;
  }
  PyObject* v = cell_value(cell);
  Py_DECREF(cell);
  return v;
}

PyObject* fetch_tensor_size(PyObject* base, Py_ssize_t dim) {
  if (!is_tensor(base)) {
    PyErr_SetString(PyExc_TypeError, "not a tensor");
    return nullptr;
  }
  try {
    const at::Tensor& t = THPVariable_Unpack(base);
    c10::SymIntArrayRef sizes = t.unsafeGetTensorImpl()->sym_sizes();
    Py_ssize_t n = static_cast<Py_ssize_t>(sizes.size());
    Py_ssize_t d = dim < 0 ? dim + n : dim;
    if (d < 0 || d >= n) {
      PyErr_SetString(PyExc_IndexError, "dimension out of range");
      return nullptr;
    }
    auto v = sizes[d].maybe_as_int();
    if (!v.has_value()) {
      PyErr_SetString(PyExc_TypeError, "symbolic size");
      return nullptr;
    }
    return PyLong_FromLongLong(*v);
  } catch (...) {
    if (!PyErr_Occurred()) {
      PyErr_SetString(PyExc_RuntimeError, "cannot read tensor size");
    }
    return nullptr;
  }
}

int length_of(PyObject* v, Py_ssize_t* out) {
  PyTypeObject* tp = Py_TYPE(v);
  if (tp == &PyTuple_Type || tp == &PyList_Type) {
    *out = Py_SIZE(v);
    return 0;
  }
  if (tp == &PyDict_Type) {
    *out = PyDict_GET_SIZE(v);
    return 0;
  }
  Py_ssize_t n = PyObject_Size(v);
  if (n < 0) {
    return -1;
  }
  *out = n;
  return 0;
}

int check_dict_keys(const Instr& in, PyObject* v) {
  PyObject* keys = in.obj;
  if (PyDict_CheckExact(v)) {
    Py_ssize_t n = PyTuple_GET_SIZE(keys);
    if (PyDict_GET_SIZE(v) != n) {
      return 0;
    }
    Py_ssize_t pos = 0, i = 0;
    PyObject *k, *val;
    while (PyDict_Next(v, &pos, &k, &val)) {
      if (i >= n) {
        return 0;
      }
      Py_INCREF(k);
      int r = const_eq(k, PyTuple_GET_ITEM(keys, i));
      Py_DECREF(k);
      if (r != 1) {
        return r;
      }
      i++;
    }
    return i == n ? 1 : 0;
  }
  PyObject* seen = PyObject_CallOneArg(in.obj2, v);  // loom_guards.guards.dict_keys_of
  if (seen == nullptr) {
    return -1;
  }
  int r = const_eq(seen, keys);
  Py_DECREF(seen);
  return r;
}

int call_check(PyObject* fn, PyObject** slots, const std::vector<int>& which) {
  PyObject* stack[16];
  std::vector<PyObject*> heap;
  PyObject** args = stack;
  size_t n = which.size();
  if (n > 16) {
    heap.resize(n);
    args = heap.data();
  }
  for (size_t i = 0; i < n; i++) {
    args[i] = slots[which[i]];
  }
  PyObject* r = PyObject_Vectorcall(fn, args, n, nullptr);
  if (r == nullptr) {
    return -1;
  }
  int truth = PyObject_IsTrue(r);
  Py_DECREF(r);
  return truth;
}

// 1: every check passed, 0: one failed, -1: a BaseException to propagate.
int run(GuardProgram* self, PyObject* frame) {
  if (self->cleared) {
    return 0;
  }
  Env env;
  if (setup_env(self, frame, env) < 0) {
    return -1;
  }
  PyObject* stack_slots[128];
  std::vector<PyObject*> heap_slots;
  PyObject** slots = stack_slots;
  Py_ssize_t nslots = self->nslots;
  if (nslots > 128) {
    heap_slots.assign(static_cast<size_t>(nslots), nullptr);
    slots = heap_slots.data();
  } else {
    for (Py_ssize_t i = 0; i < nslots; i++) {
      stack_slots[i] = nullptr;
    }
  }
  int result = 1;
  for (Instr& in : *self->code) {
    PyObject* v = nullptr;  // a fetched value (new reference)
    int ok = 1;             // a check's outcome
    switch (in.op) {
      case F_LOCAL:
        v = mapping_get(env.locals, in.obj, nullptr);  // a frame's locals are new on every call
        break;
      case F_GLOBAL:
        if (env.globals == nullptr) {
          ok = 0;
          break;
        }
        v = mapping_get(env.globals, in.obj, &in);
        break;
      case F_BUILTIN:
        v = mapping_get(env.builtins, in.obj, &in);
        break;
      case F_CLOSURE:
        v = fetch_closure(in, env);
        break;
      case F_CONST:
        v = in.obj;
        Py_INCREF(v);
        break;
      case F_ATTR: {
        PyObject* base = slots[in.src];
        if (in.n != 0 && PyModule_CheckExact(base)) {
          // a plain module's attribute is its dict entry (the name is no ModuleType attribute);
          // when missing, getattr below runs the module's __getattr__ or raises
          v = dict_get(PyModule_GetDict(base), in.obj, &in);
          if (v != nullptr) {
            break;
          }
          if (!PyErr_ExceptionMatches(PyExc_KeyError)) {
            break;
          }
          PyErr_Clear();
        }
        v = PyObject_GetAttr(base, in.obj);
        break;
      }
      case F_ITEM:
        v = item_get(slots[in.src], in.obj, &in);
        break;
      case F_TYPE:
        v = reinterpret_cast<PyObject*>(Py_TYPE(slots[in.src]));
        Py_INCREF(v);
        break;
      case F_MODMEMBER: {
        PyObject* d = instance_dict(slots[in.src], in);
        if (d == nullptr) {
          break;
        }
        PyObject* table = item_get(d, in.obj, &in);
        Py_DECREF(d);
        if (table == nullptr) {
          break;
        }
        v = item_get(table, in.obj2, nullptr);
        Py_DECREF(table);
        break;
      }
      case F_TSIZE:
        v = fetch_tensor_size(slots[in.src], in.n);
        break;
      case F_DICTATTR: {
        PyObject* d = instance_dict(slots[in.src], in);
        if (d == nullptr) {
          break;
        }
        v = item_get(d, in.obj, &in);
        Py_DECREF(d);
        break;
      }
      case F_PYREAD:
        v = PyObject_CallOneArg(in.obj, slots[in.src]);
        break;
      case F_PYROOT:
        v = PyObject_CallOneArg(in.obj, frame);
        break;
      case C_NONE:
        ok = slots[in.src] == Py_None;
        break;
      case C_NOTNONE:
        ok = slots[in.src] != Py_None;
        break;
      case C_TYPE:
        ok = reinterpret_cast<PyObject*>(Py_TYPE(slots[in.src])) == deref(in);
        break;
      case C_ID: {
        PyObject* x = slots[in.src];
        ok = x != Py_None && x == deref(in);
        break;
      }
      case C_CONST:
        ok = const_eq(slots[in.src], in.obj);
        break;
      case C_LEN: {
        Py_ssize_t n = 0;
        ok = length_of(slots[in.src], &n) < 0 ? -1 : (n == in.n);
        break;
      }
      case C_DICTKEYS:
        ok = check_dict_keys(in, slots[in.src]);
        break;
      case C_TENSOR: {
        PyObject* x = slots[in.src];
        ok = reinterpret_cast<PyObject*>(Py_TYPE(x)) == deref(in) && check_tensor(*in.tensor, x);
        break;
      }
      case C_STATE:
        ok = check_state(*in.state);
        break;
      case C_NOALIAS: {
        size_t n = in.slots.size();
        for (size_t i = 0; i < n && ok == 1; i++) {
          for (size_t j = i + 1; j < n; j++) {
            if (slots[in.slots[i]] == slots[in.slots[j]]) {
              ok = 0;
              break;
            }
          }
        }
        break;
      }
      case C_PY:
        ok = call_check(in.obj, slots, in.slots);
        break;
      default:
        PyErr_SetString(PyExc_SystemError, "loom_guards: bad opcode");
        ok = -1;
    }
    if (in.op < C_NONE) {
      if (v == nullptr) {
        ok = PyErr_Occurred() ? -1 : 0;
      } else {
        slots[in.dst] = v;
        continue;
      }
    }
    if (ok == 1) {
      continue;
    }
    if (ok < 0) {
      if (PyErr_ExceptionMatches(PyExc_Exception)) {
        PyErr_Clear();  // a guard that cannot decide fails
        ok = 0;
      } else {
        result = -1;
        break;
      }
    }
    result = 0;
    break;
  }
  for (Py_ssize_t i = 0; i < nslots; i++) {
    Py_XDECREF(slots[i]);
  }
  return result;
}

// ---------------------------------------------------------------------------------------------------
// Building a program from Python tuples

int parse_int_or_none_list(PyObject* seq, std::vector<int64_t>& out) {
  PyObject* fast = PySequence_Fast(seq, "expected a sequence of ints or None");
  if (fast == nullptr) {
    return -1;
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  out.resize(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject* item = PySequence_Fast_GET_ITEM(fast, i);
    if (item == Py_None) {
      out[i] = UNCHECKED;
    } else {
      long long x = PyLong_AsLongLong(item);
      if (x == -1 && PyErr_Occurred()) {
        Py_DECREF(fast);
        return -1;
      }
      out[i] = x;
    }
  }
  Py_DECREF(fast);
  return 0;
}

bool parse_dtype(PyObject* obj, at::ScalarType* out) {
  if (Py_TYPE(obj) != reinterpret_cast<PyTypeObject*>(g_dtype_type)) {
    PyErr_SetString(PyExc_TypeError, "expected a torch.dtype");
    return false;
  }
  *out = reinterpret_cast<THPDtype*>(obj)->scalar_type;
  return true;
}

bool parse_device(PyObject* obj, c10::Device* out) {
  if (Py_TYPE(obj) != reinterpret_cast<PyTypeObject*>(g_device_type)) {
    PyErr_SetString(PyExc_TypeError, "expected a torch.device");
    return false;
  }
  *out = reinterpret_cast<THPDevice*>(obj)->device;
  return true;
}

// (keys:int, dtype, device, requires_grad:bool, sizes:tuple, strides:tuple|None)
TensorSpec* parse_tensor_spec(PyObject* t) {
  PyObject *keys, *dtype, *device, *rg, *sizes, *strides;
  if (!PyArg_ParseTuple(t, "OOOOOO", &keys, &dtype, &device, &rg, &sizes, &strides)) {
    return nullptr;
  }
  auto* spec = new TensorSpec();
  spec->keys = PyLong_AsUnsignedLongLong(keys);
  if (PyErr_Occurred() || !parse_dtype(dtype, &spec->dtype) || !parse_device(device, &spec->device) ||
      parse_int_or_none_list(sizes, spec->sizes) < 0) {
    delete spec;
    return nullptr;
  }
  spec->requires_grad = PyObject_IsTrue(rg) == 1;
  if (strides != Py_None) {
    spec->check_strides = true;
    if (parse_int_or_none_list(strides, spec->strides) < 0) {
      delete spec;
      return nullptr;
    }
    if (spec->strides.size() != spec->sizes.size()) {
      PyErr_SetString(PyExc_ValueError, "sizes and strides differ in length");
      delete spec;
      return nullptr;
    }
  }
  return spec;
}

int parse_tristate(PyObject* obj) {  // None -> -1, else truth
  if (obj == Py_None) {
    return -1;
  }
  return PyObject_IsTrue(obj);
}

// (grad_mode, inference_mode, default_dtype, deterministic, warn_only,
//  autocast: None | (device names, ((device name, dtype), ...)), autocast_cache,
//  torch_function: None|int, tf_modes: None|int, dispatch_modes: None|int, functorch)
StateSpec* parse_state_spec(PyObject* t) {
  PyObject *grad, *inf, *ddt, *det, *detw, *ac, *acc, *tf, *tfm, *dm, *ft;
  if (!PyArg_ParseTuple(t, "OOOOOOOOOOO", &grad, &inf, &ddt, &det, &detw, &ac, &acc, &tf, &tfm, &dm, &ft)) {
    return nullptr;
  }
  auto* s = new StateSpec();
  s->grad_mode = parse_tristate(grad);
  s->inference_mode = parse_tristate(inf);
  s->deterministic = parse_tristate(det);
  s->deterministic_warn_only = parse_tristate(detw);
  s->autocast_cache = parse_tristate(acc);
  s->functorch = parse_tristate(ft);
  if (ddt != Py_None) {
    s->check_default_dtype = true;
    if (!parse_dtype(ddt, &s->default_dtype)) {
      delete s;
      return nullptr;
    }
  }
  if (tf != Py_None) {
    s->torch_function = static_cast<int>(PyLong_AsLong(tf));
  }
  if (tfm != Py_None) {
    s->torch_function_modes = PyLong_AsLongLong(tfm);
  }
  if (dm != Py_None) {
    s->dispatch_modes = PyLong_AsLongLong(dm);
  }
  if (PyErr_Occurred()) {
    delete s;
    return nullptr;
  }
  if (ac != Py_None) {
    PyObject *devices, *enabled;
    if (!PyArg_ParseTuple(ac, "OO", &devices, &enabled)) {
      delete s;
      return nullptr;
    }
    s->check_autocast = true;
    try {
      PyObject* fast = PySequence_Fast(devices, "autocast devices");
      if (fast == nullptr) {
        delete s;
        return nullptr;
      }
      for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast); i++) {
        const char* name = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(fast, i));
        if (name == nullptr) {
          Py_DECREF(fast);
          delete s;
          return nullptr;
        }
        c10::DeviceType dt = c10::Device(std::string(name)).type();
        s->autocast_mask = s->autocast_mask | c10::DispatchKeySet(at::autocast::get_autocast_dispatch_key_from_device_type(dt));
      }
      Py_DECREF(fast);
      fast = PySequence_Fast(enabled, "autocast enabled pairs");
      if (fast == nullptr) {
        delete s;
        return nullptr;
      }
      for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast); i++) {
        PyObject *dev, *dt;
        at::ScalarType st;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, i), "OO", &dev, &dt) || !parse_dtype(dt, &st)) {
          Py_DECREF(fast);
          delete s;
          return nullptr;
        }
        const char* name = PyUnicode_AsUTF8(dev);
        if (name == nullptr) {
          Py_DECREF(fast);
          delete s;
          return nullptr;
        }
        s->autocast_enabled.emplace_back(c10::Device(std::string(name)).type(), st);
      }
      Py_DECREF(fast);
      // Expected: every looked-at autocast key excluded except those of the enabled devices.
      c10::DispatchKeySet enabled_keys;
      for (const auto& p : s->autocast_enabled) {
        enabled_keys = enabled_keys | c10::DispatchKeySet(at::autocast::get_autocast_dispatch_key_from_device_type(p.first));
      }
      s->autocast_excluded = s->autocast_mask - enabled_keys;
    } catch (const std::exception& e) {
      PyErr_Format(PyExc_ValueError, "bad autocast device: %s", e.what());
      delete s;
      return nullptr;
    }
  }
  return s;
}

void clear_instr(Instr& in) {
  Py_CLEAR(in.obj);
  Py_CLEAR(in.obj2);
  delete in.tensor;
  in.tensor = nullptr;
  delete in.state;
  in.state = nullptr;
}

// (op, dst, src, obj, obj2, n, weak, ext)
int parse_instr(PyObject* t, Instr& in, Py_ssize_t nslots) {
  int op, dst, src, weak;
  PyObject *obj, *obj2, *ext;
  Py_ssize_t n;
  if (!PyTuple_Check(t) ||
      !PyArg_ParseTuple(t, "iiiOOnpO", &op, &dst, &src, &obj, &obj2, &n, &weak, &ext)) {
    if (!PyErr_Occurred()) {
      PyErr_SetString(PyExc_TypeError, "instruction must be a tuple");
    }
    return -1;
  }
  if (op < 0 || op >= OP_COUNT || dst >= nslots || src >= nslots || (op < C_NONE && dst < 0)) {
    PyErr_Format(PyExc_ValueError, "bad instruction (op %d, dst %d, src %d)", op, dst, src);
    return -1;
  }
  bool needs_src = op == F_ATTR || op == F_ITEM || op == F_TYPE || op == F_MODMEMBER || op == F_TSIZE || op == F_DICTATTR ||
      op == F_PYREAD || (op >= C_NONE && op <= C_TENSOR);
  if (needs_src && src < 0) {
    PyErr_Format(PyExc_ValueError, "instruction %s needs a source slot", OP_NAMES[op]);
    return -1;
  }
  in.op = op;
  in.dst = dst;
  in.src = src;
  in.n = n;
  in.weak = weak != 0;
  if (obj != Py_None) {
    Py_INCREF(obj);
    in.obj = obj;
  }
  if (obj2 != Py_None) {
    Py_INCREF(obj2);
    in.obj2 = obj2;
  }
  if (in.weak && (in.obj == nullptr || !PyWeakref_Check(in.obj))) {
    PyErr_SetString(PyExc_TypeError, "weak instruction needs a weakref");
    return -1;
  }
  bool needs_obj = op == F_LOCAL || op == F_GLOBAL || op == F_BUILTIN || op == F_CLOSURE || op == F_CONST ||
      op == F_ATTR || op == F_ITEM || op == F_MODMEMBER || op == F_DICTATTR || op == F_PYREAD || op == F_PYROOT || op == C_TYPE ||
      op == C_ID || op == C_CONST || op == C_DICTKEYS || op == C_TENSOR || op == C_PY;
  if (needs_obj && in.obj == nullptr && !(op == F_CONST && obj == Py_None)) {
    PyErr_Format(PyExc_ValueError, "instruction %s needs an object", OP_NAMES[op]);
    return -1;
  }
  if (op == F_CONST && in.obj == nullptr) {
    Py_INCREF(Py_None);
    in.obj = Py_None;
  }
  if ((op == F_MODMEMBER || op == C_DICTKEYS) && in.obj2 == nullptr) {
    PyErr_Format(PyExc_ValueError, "instruction %s needs a second object", OP_NAMES[op]);
    return -1;
  }
  if (op == C_DICTKEYS && !PyTuple_Check(in.obj)) {
    PyErr_SetString(PyExc_TypeError, "C_DICTKEYS needs a tuple of keys");
    return -1;
  }
  if (op == C_TENSOR) {
    in.tensor = parse_tensor_spec(ext);
    if (in.tensor == nullptr) {
      return -1;
    }
  } else if (op == C_STATE) {
    in.state = parse_state_spec(ext);
    if (in.state == nullptr) {
      return -1;
    }
  } else if (op == C_NOALIAS || op == C_PY) {
    PyObject* fast = PySequence_Fast(ext, "expected a sequence of slots");
    if (fast == nullptr) {
      return -1;
    }
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast); i++) {
      long s = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
      if ((s == -1 && PyErr_Occurred()) || s < 0 || s >= nslots) {
        Py_DECREF(fast);
        if (!PyErr_Occurred()) {
          PyErr_SetString(PyExc_ValueError, "slot out of range");
        }
        return -1;
      }
      in.slots.push_back(static_cast<int>(s));
    }
    Py_DECREF(fast);
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------------
// The GuardProgram type

PyObject* program_vectorcall(PyObject* self_, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  auto* self = reinterpret_cast<GuardProgram*>(self_);
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  if (nargs != 1 || (kwnames != nullptr && PyTuple_GET_SIZE(kwnames) != 0)) {
    PyErr_SetString(PyExc_TypeError, "a GuardFn takes exactly one argument (a frame view or a mapping of locals)");
    return nullptr;
  }
  int r = run(self, args[0]);
  if (r < 0) {
    return nullptr;
  }
  return PyBool_FromLong(r);
}

int program_traverse(PyObject* self_, visitproc visit, void* arg) {
  auto* self = reinterpret_cast<GuardProgram*>(self_);
  Py_VISIT(Py_TYPE(self_));
  Py_VISIT(self->plan);
  Py_VISIT(self->g_fb);
  Py_VISIT(self->b_fb);
  Py_VISIT(self->cl_fb);
  if (self->code != nullptr) {
    for (Instr& in : *self->code) {
      Py_VISIT(in.obj);
      Py_VISIT(in.obj2);
    }
  }
  return 0;
}

int program_clear(PyObject* self_) {
  auto* self = reinterpret_cast<GuardProgram*>(self_);
  Py_CLEAR(self->plan);
  Py_CLEAR(self->g_fb);
  Py_CLEAR(self->b_fb);
  Py_CLEAR(self->cl_fb);
  if (self->code != nullptr) {
    for (Instr& in : *self->code) {
      clear_instr(in);
    }
    self->code->clear();
  }
  self->cleared = true;
  return 0;
}

void program_dealloc(PyObject* self_) {
  auto* self = reinterpret_cast<GuardProgram*>(self_);
  PyObject_GC_UnTrack(self_);
  if (self->weakreflist != nullptr) {
    PyObject_ClearWeakRefs(self_);
  }
  program_clear(self_);
  delete self->code;
  self->code = nullptr;
  PyTypeObject* tp = Py_TYPE(self_);
  tp->tp_free(self_);
  Py_DECREF(tp);
}

// GuardProgram(instructions, nslots, plan, f_globals, f_builtins, closure_map, needs)
PyObject* program_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  PyObject *instrs, *plan, *g_fb, *b_fb, *cl_fb, *needs;
  Py_ssize_t nslots;
  static const char* kwlist[] = {"instructions", "nslots", "plan", "f_globals", "f_builtins", "closure", "needs", nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OnOOOOO", const_cast<char**>(kwlist), &instrs, &nslots, &plan,
                                   &g_fb, &b_fb, &cl_fb, &needs)) {
    return nullptr;
  }
  if (g_tensor_type == nullptr) {
    PyErr_SetString(PyExc_RuntimeError, "loom_guards._accel._init was not called");
    return nullptr;
  }
  if (nslots < 0) {
    PyErr_SetString(PyExc_ValueError, "nslots must be >= 0");
    return nullptr;
  }
  if (b_fb == Py_None || !PyDict_Check(b_fb)) {
    PyErr_SetString(PyExc_TypeError, "f_builtins must be a dict");
    return nullptr;
  }
  int ng, nb, nc;
  if (!PyArg_ParseTuple(needs, "ppp", &ng, &nb, &nc)) {
    return nullptr;
  }
  PyObject* fast = PySequence_Fast(instrs, "instructions must be a sequence");
  if (fast == nullptr) {
    return nullptr;
  }
  auto* self = reinterpret_cast<GuardProgram*>(type->tp_alloc(type, 0));
  if (self == nullptr) {
    Py_DECREF(fast);
    return nullptr;
  }
  self->vectorcall = program_vectorcall;
  self->code = new std::vector<Instr>();
  self->nslots = nslots;
  self->needs_globals = ng != 0;
  self->needs_builtins = nb != 0;
  self->needs_closure = nc != 0;
  Py_INCREF(plan);
  self->plan = plan;
  if (g_fb != Py_None) {
    Py_INCREF(g_fb);
    self->g_fb = g_fb;
  }
  Py_INCREF(b_fb);
  self->b_fb = b_fb;
  if (cl_fb != Py_None) {
    Py_INCREF(cl_fb);
    self->cl_fb = cl_fb;
  }
  Py_ssize_t count = PySequence_Fast_GET_SIZE(fast);
  self->code->resize(static_cast<size_t>(count));
  // Every slot an instruction reads must have been written by an earlier fetch, and each slot is
  // written once: the run loop relies on both (it stops at the first failure, so an earlier fetch has
  // always succeeded when a later instruction runs).
  std::vector<char> written(static_cast<size_t>(nslots), 0);
  for (Py_ssize_t i = 0; i < count; i++) {
    Instr& in = (*self->code)[i];
    if (parse_instr(PySequence_Fast_GET_ITEM(fast, i), in, nslots) < 0) {
      Py_DECREF(fast);
      Py_DECREF(self);
      return nullptr;
    }
    bool bad = in.src >= 0 && !written[in.src];
    for (int slot : in.slots) {
      bad = bad || !written[slot];
    }
    if (in.op < C_NONE) {
      bad = bad || written[in.dst];
      written[in.dst] = 1;
    }
    if (bad) {
      PyErr_Format(PyExc_ValueError, "instruction %zd (%s) reads a slot no earlier instruction wrote, "
                   "or writes a slot twice", i, OP_NAMES[in.op]);
      Py_DECREF(fast);
      Py_DECREF(self);
      return nullptr;
    }
  }
  Py_DECREF(fast);
  return reinterpret_cast<PyObject*>(self);
}

PyObject* program_describe(PyObject* self_, PyObject* /*unused*/) {
  auto* self = reinterpret_cast<GuardProgram*>(self_);
  if (self->plan == nullptr) {
    return PyUnicode_FromString("GuardFn (cleared)");
  }
  PyObject* n = PyObject_GetAttrString(self->plan, "guards");
  if (n == nullptr) {
    return nullptr;
  }
  Py_ssize_t count = PyObject_Length(n);
  Py_DECREF(n);
  PyObject* header = PyUnicode_FromFormat("GuardFn (accelerated, %zd guards):", count);
  if (header == nullptr) {
    return nullptr;
  }
  PyObject* r = PyObject_CallMethod(self->plan, "describe", "O", header);
  Py_DECREF(header);
  return r;
}

PyObject* program_why_failed(PyObject* self_, PyObject* frame) {
  auto* self = reinterpret_cast<GuardProgram*>(self_);
  if (self->plan == nullptr) {
    Py_RETURN_NONE;
  }
  return PyObject_CallMethod(self->plan, "why_failed", "O", frame);
}

PyObject* program_get_guards(PyObject* self_, void* /*unused*/) {
  auto* self = reinterpret_cast<GuardProgram*>(self_);
  if (self->plan == nullptr) {
    return PyTuple_New(0);
  }
  return PyObject_GetAttrString(self->plan, "guards");
}

PyObject* program_get_alive(PyObject* self_, void* /*unused*/) {
  auto* self = reinterpret_cast<GuardProgram*>(self_);
  if (self->plan == nullptr) {
    Py_RETURN_FALSE;
  }
  return PyObject_GetAttrString(self->plan, "alive");
}

PyObject* program_get_accelerated(PyObject* /*self*/, void* /*unused*/) {
  Py_RETURN_TRUE;
}

PyObject* program_get_plan(PyObject* self_, void* /*unused*/) {
  auto* self = reinterpret_cast<GuardProgram*>(self_);
  PyObject* p = self->plan != nullptr ? self->plan : Py_None;
  Py_INCREF(p);
  return p;
}

PyObject* program_instructions(PyObject* self_, PyObject* /*unused*/) {
  auto* self = reinterpret_cast<GuardProgram*>(self_);
  PyObject* out = PyList_New(0);
  if (out == nullptr) {
    return nullptr;
  }
  for (const Instr& in : *self->code) {
    PyObject* item = Py_BuildValue("(sii)", OP_NAMES[in.op], in.dst, in.src);
    if (item == nullptr || PyList_Append(out, item) < 0) {
      Py_XDECREF(item);
      Py_DECREF(out);
      return nullptr;
    }
    Py_DECREF(item);
  }
  return out;
}

PyObject* program_repr(PyObject* self_) {
  auto* self = reinterpret_cast<GuardProgram*>(self_);
  return PyUnicode_FromFormat("<GuardFn accelerated, %zd instructions>",
                              static_cast<Py_ssize_t>(self->code ? self->code->size() : 0));
}

PyMethodDef program_methods[] = {
    {"describe", program_describe, METH_NOARGS, "The guards, one per line, in check order."},
    {"why_failed", program_why_failed, METH_O,
     "The first failing guard with the value seen (a GuardFailure), or None when all pass."},
    {"explain", program_why_failed, METH_O, "Same as why_failed (the name docs/architecture.md uses)."},
    {"instructions", program_instructions, METH_NOARGS, "The program's instructions (op name, dst, src)."},
    {nullptr, nullptr, 0, nullptr},
};

PyGetSetDef program_getset[] = {
    {"guards", program_get_guards, nullptr, "The guards in check order.", nullptr},
    {"alive", program_get_alive, nullptr, "False once an object compared by identity died.", nullptr},
    {"accelerated", program_get_accelerated, nullptr, "True: this is the C++ back end.", nullptr},
    {"plan", program_get_plan, nullptr, "The plan the program was built from.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyType_Slot program_slots[] = {
    {Py_tp_new, reinterpret_cast<void*>(program_new)},
    {Py_tp_dealloc, reinterpret_cast<void*>(program_dealloc)},
    {Py_tp_traverse, reinterpret_cast<void*>(program_traverse)},
    {Py_tp_clear, reinterpret_cast<void*>(program_clear)},
    {Py_tp_call, reinterpret_cast<void*>(PyVectorcall_Call)},
    {Py_tp_methods, program_methods},
    {Py_tp_getset, program_getset},
    {Py_tp_repr, reinterpret_cast<void*>(program_repr)},
    {Py_tp_doc, const_cast<char*>("A compiled guard check (the C++ back end of loom_guards.GuardFn).")},
    {0, nullptr},
};

PyMemberDef program_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(GuardProgram, vectorcall), READONLY, nullptr},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(GuardProgram, weakreflist), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr},
};

PyObject* make_program_type() {
  static PyType_Slot slots[sizeof(program_slots) / sizeof(program_slots[0]) + 1];
  size_t i = 0;
  for (; program_slots[i].slot != 0; i++) {
    slots[i] = program_slots[i];
  }
  slots[i++] = {Py_tp_members, program_members};
  slots[i] = {0, nullptr};
  static PyType_Spec spec = {
      "loom_guards._accel.GuardProgram",
      sizeof(GuardProgram),
      0,
      Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_IMMUTABLETYPE,
      slots,
  };
  return PyType_FromSpec(&spec);
}

// ---------------------------------------------------------------------------------------------------
// Module

PyObject* accel_init(PyObject* /*module*/, PyObject* args) {
  PyObject *tensor_type, *dtype_type, *device_type, *enum_type, *identity_types, *mapping_abc, *plain_class;
  if (!PyArg_ParseTuple(args, "OOOOO!OO!", &tensor_type, &dtype_type, &device_type, &enum_type, &PyTuple_Type,
                        &identity_types, &mapping_abc, &PyType_Type, &plain_class)) {
    return nullptr;
  }
  PyObject* descr = _PyType_Lookup(reinterpret_cast<PyTypeObject*>(plain_class), s_dict);
  if (descr == nullptr || !Py_IS_TYPE(descr, &PyGetSetDescr_Type)) {
    PyErr_SetString(PyExc_TypeError, "_init needs a plain Python class (its __dict__ descriptor)");
    return nullptr;
  }
  g_subtype_dict = reinterpret_cast<PyGetSetDescrObject*>(descr)->d_getset->get;
  PyObject** targets[] = {&g_tensor_type, &g_dtype_type, &g_device_type, &g_enum_type, &g_identity_types,
                          &g_mapping_abc};
  PyObject* values[] = {tensor_type, dtype_type, device_type, enum_type, identity_types, mapping_abc};
  for (size_t i = 0; i < 6; i++) {
    Py_INCREF(values[i]);
    Py_XSETREF(*targets[i], values[i]);
  }
  Py_RETURN_NONE;
}

// The same facts check_state reads, as Python values (used by the tests to prove both paths agree).
PyObject* accel_read_state(PyObject* /*module*/, PyObject* args) {
  PyObject* devices;
  if (!PyArg_ParseTuple(args, "O", &devices)) {
    return nullptr;
  }
  try {
    c10::impl::LocalDispatchKeySet tls = c10::impl::tls_local_dispatch_key_set();
    PyObject* enabled = PyList_New(0);
    if (enabled == nullptr) {
      return nullptr;
    }
    PyObject* fast = PySequence_Fast(devices, "devices");
    if (fast == nullptr) {
      Py_DECREF(enabled);
      return nullptr;
    }
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast); i++) {
      PyObject* name = PySequence_Fast_GET_ITEM(fast, i);
      const char* text = PyUnicode_AsUTF8(name);
      if (text == nullptr) {
        Py_DECREF(fast);
        Py_DECREF(enabled);
        return nullptr;
      }
      c10::DeviceType dt = c10::Device(std::string(text)).type();
      if (!tls.excluded_.has(at::autocast::get_autocast_dispatch_key_from_device_type(dt))) {
        PyObject* item = Py_BuildValue("(Oi)", name, static_cast<int>(at::autocast::get_autocast_dtype(dt)));
        if (item == nullptr || PyList_Append(enabled, item) < 0) {
          Py_XDECREF(item);
          Py_DECREF(fast);
          Py_DECREF(enabled);
          return nullptr;
        }
        Py_DECREF(item);
      }
    }
    Py_DECREF(fast);
    const c10::AutogradState& ag = c10::AutogradState::get_tls_state();
    return Py_BuildValue(
        "{s:O,s:O,s:i,s:O,s:O,s:N,s:O,s:i,s:L,s:L,s:O}", "grad_mode", ag.get_grad_mode() ? Py_True : Py_False,
        "inference_mode", ag.get_inference_mode() ? Py_True : Py_False, "default_dtype",
        static_cast<int>(c10::get_default_dtype().toScalarType()), "deterministic_algorithms",
        at::globalContext().deterministicAlgorithms() ? Py_True : Py_False, "deterministic_warn_only",
        at::globalContext().deterministicAlgorithmsWarnOnly() ? Py_True : Py_False, "autocast", enabled,
        "autocast_cache", at::autocast::is_autocast_cache_enabled() ? Py_True : Py_False, "torch_function",
        torch_function_state(), "torch_function_modes",
        static_cast<long long>(at::impl::PythonTorchFunctionTLS::stack_len()), "dispatch_modes",
        static_cast<long long>(c10::impl::TorchDispatchModeTLS::stack_len()), "functorch",
        functorch_active(tls) ? Py_True : Py_False);
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
    return nullptr;
  }
}

PyMethodDef module_methods[] = {
    {"_init", accel_init, METH_VARARGS, "Give the accelerator the Python types it compares against."},
    {"read_state", accel_read_state, METH_VARARGS, "torch's global state as the accelerator reads it."},
    {nullptr, nullptr, 0, nullptr},
};

PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "loom_guards._accel",
    "The C++ accelerator of loom_guards (built against one torch version).", -1, module_methods,
    nullptr, nullptr, nullptr, nullptr,
};

int intern(PyObject** slot, const char* text) {
  *slot = PyUnicode_InternFromString(text);
  return *slot == nullptr ? -1 : 0;
}

}  // namespace

PyMODINIT_FUNC PyInit__accel(void) {
  if (intern(&s_f_locals, "f_locals") < 0 || intern(&s_f_globals, "f_globals") < 0 ||
      intern(&s_f_builtins, "f_builtins") < 0 || intern(&s_closure, "closure") < 0 ||
      intern(&s_f_code, "f_code") < 0 || intern(&s_co_freevars, "co_freevars") < 0 ||
      intern(&s_dict, "__dict__") < 0) {
    return nullptr;
  }
  PyObject* m = PyModule_Create(&module_def);
  if (m == nullptr) {
    return nullptr;
  }
  PyObject* type = make_program_type();
  if (type == nullptr || PyModule_AddObject(m, "GuardProgram", type) < 0) {
    Py_XDECREF(type);
    Py_DECREF(m);
    return nullptr;
  }
  PyObject* ops = PyDict_New();
  if (ops == nullptr) {
    Py_DECREF(m);
    return nullptr;
  }
  for (int i = 0; i < OP_COUNT; i++) {
    PyObject* v = PyLong_FromLong(i);
    if (v == nullptr || PyDict_SetItemString(ops, OP_NAMES[i], v) < 0) {
      Py_XDECREF(v);
      Py_DECREF(ops);
      Py_DECREF(m);
      return nullptr;
    }
    Py_DECREF(v);
  }
  if (PyModule_AddObject(m, "OPS", ops) < 0 ||
      PyModule_AddStringConstant(m, "TORCH_VERSION", LOOM_TORCH_VERSION) < 0) {
    Py_DECREF(ops);
    Py_DECREF(m);
    return nullptr;
  }
  return m;
}
