// Tensor checks and reads (C_TENSOR, F_TSIZE). They run inside the check loop (run.cpp), the only unit
// that includes this header (so it alone compiles torch's python_variable.h).
//
// The functions are `static` on purpose: GCC inlines a local function with one call site into the loop,
// as it did when everything was one file. Forcing it ([[gnu::always_inline]] on an external function)
// measured 10-25 ns slower per tensor: the grown loop exhausted GCC's inlining budget, and torch's own
// small inline helpers (SymInt::maybe_as_int) became calls.

#pragma once

#include "accel.h"

#include <torch/csrc/autograd/python_variable.h>

#pragma GCC visibility push(hidden)

namespace loom_accel {

static inline bool is_tensor(PyObject* v) {
  return PyObject_TypeCheck(v, reinterpret_cast<PyTypeObject*>(g_tensor_type));
}

// Whether tensor `v` (of the expected exact Python type) matches `spec`: 1 or 0, never an error.
static inline int check_tensor(const TensorSpec& spec, PyObject* v) noexcept {
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

// tensor.size()[dim] as a Python int (F_TSIZE); new reference or NULL.
static inline PyObject* fetch_tensor_size(PyObject* base, Py_ssize_t dim) {
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

}  // namespace loom_accel

#pragma GCC visibility pop
