// Module glue of loom_guards._accel: the module state set by _init, the module's functions, and
// PyInit__accel (the only exported symbol).

#include "accel.h"

namespace loom_accel {

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
PyObject* s_getattribute = nullptr;
getattrofunc g_getattr_hook = nullptr;  // the tp_getattro of Python classes that define __getattr__

namespace {

PyObject* accel_init(PyObject* /*module*/, PyObject* args) {
  PyObject *tensor_type, *dtype_type, *device_type, *enum_type, *identity_types, *mapping_abc, *plain_class,
      *getattr_class;
  if (!PyArg_ParseTuple(args, "OOOOO!OO!O!", &tensor_type, &dtype_type, &device_type, &enum_type, &PyTuple_Type,
                        &identity_types, &mapping_abc, &PyType_Type, &plain_class, &PyType_Type, &getattr_class)) {
    return nullptr;
  }
  PyObject* descr = _PyType_Lookup(reinterpret_cast<PyTypeObject*>(plain_class), s_dict);
  if (descr == nullptr || !Py_IS_TYPE(descr, &PyGetSetDescr_Type)) {
    PyErr_SetString(PyExc_TypeError, "_init needs a plain Python class (its __dict__ descriptor)");
    return nullptr;
  }
  // A class defining __getattr__ (and no __getattribute__) gets CPython's __getattr__ hook as its
  // tp_getattro; the hook runs the generic lookup first when __getattribute__ is object's.
  getattrofunc hook = reinterpret_cast<PyTypeObject*>(getattr_class)->tp_getattro;
  if (hook == nullptr || hook == PyObject_GenericGetAttr) {
    PyErr_SetString(PyExc_TypeError, "_init needs a Python class defining __getattr__");
    return nullptr;
  }
  g_subtype_dict = reinterpret_cast<PyGetSetDescrObject*>(descr)->d_getset->get;
  g_getattr_hook = hook;
  PyObject** targets[] = {&g_tensor_type, &g_dtype_type, &g_device_type, &g_enum_type, &g_identity_types,
                          &g_mapping_abc};
  PyObject* values[] = {tensor_type, dtype_type, device_type, enum_type, identity_types, mapping_abc};
  for (size_t i = 0; i < 6; i++) {
    Py_INCREF(values[i]);
    Py_XSETREF(*targets[i], values[i]);
  }
  Py_RETURN_NONE;
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

}  // namespace loom_accel

using namespace loom_accel;

PyMODINIT_FUNC PyInit__accel(void) {
  if (intern(&s_f_locals, "f_locals") < 0 || intern(&s_f_globals, "f_globals") < 0 ||
      intern(&s_f_builtins, "f_builtins") < 0 || intern(&s_closure, "closure") < 0 ||
      intern(&s_f_code, "f_code") < 0 || intern(&s_co_freevars, "co_freevars") < 0 ||
      intern(&s_dict, "__dict__") < 0 || intern(&s_getattribute, "__getattribute__") < 0) {
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
