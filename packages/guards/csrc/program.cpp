// The GuardProgram type: a GC-tracked, vectorcall-able object holding the instructions (called through
// program_vectorcall in run.cpp); guards, describe and why_failed delegate to the Python plan.

#include "accel.h"

#include <structmember.h>

namespace loom_accel {

namespace {

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
      if (in.consts != nullptr) {
        for (const ConstLen& e : in.consts->lens) {
          Py_VISIT(e.obj);
        }
        for (const ConstContains& e : in.consts->contains) {
          Py_VISIT(e.obj);
          Py_VISIT(e.key);
        }
      }
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

}  // namespace

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

}  // namespace loom_accel
