// Value checks the check loop (run.cpp) calls: type-strict equality with a constant (C_CONST, and the
// keys of C_DICTKEYS), dict keys in order, membership in a mapping that is not an exact dict
// (C_DICTCONTAINS), the fused checks on constants (C_CONSTS), and calls of Python checks (C_PY).

#include "accel.h"

#include <cmath>

namespace loom_accel {

namespace {

inline int float_eq(double a, double b) {
  if (a == b) {
    return (a != 0.0 || std::signbit(a) == std::signbit(b)) ? 1 : 0;
  }
  return (std::isnan(a) && std::isnan(b)) ? 1 : 0;
}

// A float or complex holding a NaN: as a member of a container it matches only itself.
inline bool is_nan_scalar(PyObject* e) {
  if (PyFloat_CheckExact(e)) {
    return std::isnan(PyFloat_AS_DOUBLE(e));
  }
  if (PyComplex_CheckExact(e)) {
    Py_complex c = PyComplex_AsCComplex(e);
    return std::isnan(c.real) || std::isnan(c.imag);
  }
  return false;
}

// const_eq of a container's member (a tuple item, a dict key); mirrors loom_guards.kinds.constant.member_eq:
// CPython compares members identity first, so which NaN object a tuple holds decides `in` and `==`.
int member_eq(PyObject* v, PyObject* e) {
  if (v == e) {
    return 1;
  }
  if (is_nan_scalar(e)) {
    return 0;
  }
  return const_eq(v, e);
}

}  // namespace

// Type-strict equality with a constant; mirrors loom_guards.kinds.const_eq. 1 / 0 / -1 (error).
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
      int r = member_eq(PyTuple_GET_ITEM(v, i), PyTuple_GET_ITEM(e, i));
      if (r != 1) {
        return r;
      }
    }
    return 1;
  }
  if (PyAnySet_Check(e)) {
    return 0;  // never reached: a constant holding a set is lowered to its Python check (type-strict members)
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
      int r = member_eq(k, PyTuple_GET_ITEM(keys, i));
      Py_DECREF(k);
      if (r != 1) {
        return r;
      }
      i++;
    }
    return i == n ? 1 : 0;
  }
  PyObject* seen = PyObject_CallOneArg(in.obj2, v);  // loom_guards.kinds.dict_keys_of
  if (seen == nullptr) {
    return -1;
  }
  int r = const_eq(seen, keys);
  Py_DECREF(seen);
  return r;
}

// `key in v` compared with `present` for any v; mirrors loom_guards.kinds.DictContains: an exact dict is
// looked up directly, any other Mapping answers through its own __contains__, anything else fails.
int mapping_contains(PyObject* v, PyObject* key, bool present) {
  int r;
  if (PyDict_CheckExact(v)) {  // only a colliding key's __eq__ can run user code
    r = PyDict_Contains(v, key);
  } else {
    int is_mapping = PyObject_IsInstance(v, g_mapping_abc);
    if (is_mapping <= 0) {
      return is_mapping;
    }
    r = PySequence_Contains(v, key);
  }
  return r < 0 ? -1 : (r == static_cast<int>(present));
}

// C_DICTCONTAINS for a v that is not an exact dict (the loop looks those up itself): the key is in.obj,
// in.n is 1 (present) or 0 (absent).
int check_mapping_contains(const Instr& in, PyObject* v) {
  return mapping_contains(v, in.obj, in.n != 0);
}

namespace {

// `key in obj.__dict__` compared with `present`.
int class_dict_contains(const ConstContains& c) {
  if (Py_IS_TYPE(c.obj, &PyType_Type)) {
    // A class whose metaclass is type: `cls.__dict__` is type's own `__dict__` descriptor (a data
    // descriptor of the metaclass, so nothing in the class can shadow it, and type cannot be changed),
    // which returns mappingproxy(tp_dict); `in` on that proxy is PyDict_Contains on tp_dict, and a
    // mappingproxy is a Mapping. So look in the class's dict without making the proxy.
    auto* cls = reinterpret_cast<PyTypeObject*>(c.obj);
#if PY_VERSION_HEX >= 0x030C0000
    PyObject* d = PyType_GetDict(cls);  // new reference (static builtin types keep it elsewhere)
    int r = PyDict_Contains(d, c.key);
    Py_DECREF(d);
#else
    int r = PyDict_Contains(cls->tp_dict, c.key);
#endif
    return r < 0 ? -1 : (r == static_cast<int>(c.present));
  }
  PyObject* d = PyObject_GetAttr(c.obj, s_dict);
  if (d == nullptr) {
    return -1;
  }
  int r = mapping_contains(d, c.key, c.present);
  Py_DECREF(d);
  return r;
}

}  // namespace

// C_CONSTS: every fused check on a constant, 1 / 0 / -1 (an exception is set). The lengths first (a
// module's hook dicts, guarded empty: a length compare each), then the memberships.
int check_consts(const ConstChecks& c) {
  for (const ConstLen& e : c.lens) {
    PyObject* v = e.obj;
    PyTypeObject* tp = Py_TYPE(v);
    Py_ssize_t n;
    if (tp == e.dict_type || len_is_dict_size(tp)) {
      n = PyDict_GET_SIZE(v);
    } else if (tp == &PyTuple_Type || tp == &PyList_Type) {
      n = Py_SIZE(v);
    } else {
      n = PyObject_Size(v);
      if (n < 0) {
        return -1;
      }
    }
    if (n != e.n) {
      return 0;
    }
  }
  for (const ConstContains& e : c.contains) {
    int r = e.class_dict ? class_dict_contains(e) : mapping_contains(e.obj, e.key, e.present);
    if (r != 1) {
      return r;
    }
  }
  return 1;
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

}  // namespace loom_accel
