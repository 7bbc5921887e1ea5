// Value checks the check loop (run.cpp) calls: type-strict equality with a constant (C_CONST, and the
// keys of C_DICTKEYS), dict keys in order, membership in a mapping that is not an exact dict
// (C_DICTCONTAINS), and calls of Python checks (C_PY).

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
  PyObject* seen = PyObject_CallOneArg(in.obj2, v);  // loom_guards.kinds.dict_keys_of
  if (seen == nullptr) {
    return -1;
  }
  int r = const_eq(seen, keys);
  Py_DECREF(seen);
  return r;
}

// `key in v` (in.obj) compared with in.n (1 present, 0 absent) for a v that is not an exact dict (the
// loop looks those up itself); mirrors loom_guards.kinds.DictContains: any Mapping answers through its
// own __contains__, anything else fails.
int check_mapping_contains(const Instr& in, PyObject* v) {
  int is_mapping = PyObject_IsInstance(v, g_mapping_abc);
  if (is_mapping <= 0) {
    return is_mapping;
  }
  int r = PySequence_Contains(v, in.obj);
  return r < 0 ? -1 : (r == in.n);
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
