// Building a program's instructions from the tuples loom_guards/_lower.py makes:
// (op, dst, src, obj, obj2, n, weak, ext), with `ext` a tensor spec (C_TENSOR), a global-state spec
// (C_STATE, parsed in state.cpp), a list of slots (C_NOALIAS, C_SAME, C_PY) or the entries of C_CONSTS.
// C_DICTCONTAINS has its key in `obj` (None is a key) and `present` in `n`. Malformed input raises.

#include "accel.h"

#include <torch/csrc/Device.h>
#include <torch/csrc/Dtype.h>

namespace loom_accel {

namespace {

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

bool parse_device(PyObject* obj, c10::Device* out) {
  if (Py_TYPE(obj) != reinterpret_cast<PyTypeObject*>(g_device_type)) {
    PyErr_SetString(PyExc_TypeError, "expected a torch.device");
    return false;
  }
  *out = reinterpret_cast<THPDevice*>(obj)->device;
  return true;
}

}  // namespace

bool parse_dtype(PyObject* obj, at::ScalarType* out) {
  if (Py_TYPE(obj) != reinterpret_cast<PyTypeObject*>(g_dtype_type)) {
    PyErr_SetString(PyExc_TypeError, "expected a torch.dtype");
    return false;
  }
  *out = reinterpret_cast<THPDtype*>(obj)->scalar_type;
  return true;
}

namespace {

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

void clear_consts(ConstChecks* c) {
  for (ConstLen& e : c->lens) {
    Py_CLEAR(e.obj);
  }
  for (ConstContains& e : c->contains) {
    Py_CLEAR(e.obj);
    Py_CLEAR(e.key);
  }
  delete c;
}

// C_CONSTS entries, each (kind, obj, key, n): kind 0 `len(obj) == n`, kind 1 `(key in obj) == n`, kind 2
// `(key in obj.__dict__) == n` (n 1: present, 0: absent).
ConstChecks* parse_consts(PyObject* ext) {
  PyObject* fast = PySequence_Fast(ext, "C_CONSTS needs a sequence of (kind, obj, key, n) entries");
  if (fast == nullptr) {
    return nullptr;
  }
  auto* c = new ConstChecks();
  Py_ssize_t count = PySequence_Fast_GET_SIZE(fast);
  for (Py_ssize_t i = 0; i < count; i++) {
    PyObject* entry = PySequence_Fast_GET_ITEM(fast, i);
    int kind;
    PyObject *obj, *key;
    Py_ssize_t n;
    if (!PyTuple_Check(entry) || !PyArg_ParseTuple(entry, "iOOn", &kind, &obj, &key, &n)) {
      if (!PyErr_Occurred()) {
        PyErr_SetString(PyExc_TypeError, "a C_CONSTS entry must be a tuple (kind, obj, key, n)");
      }
      break;
    }
    if (kind < 0 || kind > 2 || (kind == 0 && n < 0) || (kind != 0 && n != 0 && n != 1)) {
      PyErr_Format(PyExc_ValueError, "bad C_CONSTS entry (kind %d, n %zd)", kind, n);
      break;
    }
    if (kind != 0 && PyObject_Hash(key) == -1) {  // an unhashable key could never be looked up
      break;
    }
    Py_INCREF(obj);
    if (kind == 0) {
      PyTypeObject* tp = Py_TYPE(obj);
      bool fixed = fixed_len_is_dict_size(tp);
      c->lens.push_back(ConstLen{obj, n, fixed ? tp : nullptr});
    } else {
      Py_INCREF(key);
      c->contains.push_back(ConstContains{obj, key, n != 0, kind == 2});
    }
  }
  Py_DECREF(fast);
  if (PyErr_Occurred()) {
    clear_consts(c);
    return nullptr;
  }
  return c;
}

}  // namespace

void clear_instr(Instr& in) {
  Py_CLEAR(in.obj);
  Py_CLEAR(in.obj2);
  delete in.tensor;
  in.tensor = nullptr;
  delete in.state;
  in.state = nullptr;
  if (in.consts != nullptr) {
    clear_consts(in.consts);
    in.consts = nullptr;
  }
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
      op == F_PYREAD || (op >= C_NONE && op <= C_TENSOR) || op == C_EMPTYATTRS;
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
      op == C_ID || op == C_CONST || op == C_DICTKEYS || op == C_TENSOR || op == C_PY || op == C_EMPTYATTRS;
  if (needs_obj && in.obj == nullptr && !(op == F_CONST && obj == Py_None)) {
    PyErr_Format(PyExc_ValueError, "instruction %s needs an object", OP_NAMES[op]);
    return -1;
  }
  if ((op == F_CONST || op == C_DICTCONTAINS) && in.obj == nullptr) {
    Py_INCREF(Py_None);
    in.obj = Py_None;
  }
  if ((op == F_MODMEMBER || op == C_DICTKEYS) && in.obj2 == nullptr) {
    PyErr_Format(PyExc_ValueError, "instruction %s needs a second object", OP_NAMES[op]);
    return -1;
  }
  if (op == C_EMPTYATTRS) {
    // names looked up in an instance dict: exact str (a lookup that runs no user code), at least one
    bool ok = PyTuple_Check(in.obj) && PyTuple_GET_SIZE(in.obj) > 0;
    for (Py_ssize_t i = 0; ok && i < PyTuple_GET_SIZE(in.obj); i++) {
      ok = PyUnicode_CheckExact(PyTuple_GET_ITEM(in.obj, i));
    }
    if (!ok) {
      PyErr_SetString(PyExc_TypeError, "C_EMPTYATTRS needs a non-empty tuple of str names");
      return -1;
    }
  }
  if (op == C_DICTKEYS && !PyTuple_Check(in.obj)) {
    PyErr_SetString(PyExc_TypeError, "C_DICTKEYS needs a tuple of keys");
    return -1;
  }
  if (op == C_DICTCONTAINS) {
    if (n != 0 && n != 1) {
      PyErr_SetString(PyExc_ValueError, "C_DICTCONTAINS needs n = 1 (present) or 0 (absent)");
      return -1;
    }
    if (PyObject_Hash(in.obj) == -1) {  // an unhashable key could never be looked up
      return -1;
    }
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
  } else if (op == C_CONSTS) {
    in.consts = parse_consts(ext);
    if (in.consts == nullptr) {
      return -1;
    }
  } else if (op == C_NOALIAS || op == C_SAME || op == C_PY) {
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
    if (op == C_SAME && in.slots.size() != 2) {
      PyErr_SetString(PyExc_ValueError, "C_SAME compares exactly two slots");
      return -1;
    }
  }
  return 0;
}

}  // namespace loom_accel
