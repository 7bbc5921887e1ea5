// The check loop: running a program's instructions on one frame view or mapping of locals. The hot
// checks are inlined here (tensor.h, state.h); the source reads live in fetch.cpp, value checks in
// values.cpp.

#include "accel.h"
#include "state.h"
#include "tensor.h"

#include <cstring>

namespace loom_accel {

namespace {

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

// loom_framehook's C interface to its FrameView (its frame_view_api.h; this is a copy of that layout,
// checked by version and size). With it a guard reads a view's arguments, globals and builtins
// directly: no attribute lookups, no f_locals dict built per call.
struct FrameViewAPI {
  unsigned int version;
  unsigned int size;
  PyTypeObject* view_type;
  int (*argument)(PyObject* view, PyObject* name, PyObject** out);
  PyObject* (*globals)(PyObject* view);
  PyObject* (*builtins)(PyObject* view);
};
constexpr const char* kViewTypeName = "loom_framehook.FrameView";
constexpr const char* kViewModule = "loom_framehook._framehook";
constexpr const char* kViewCapsule = "loom_framehook._framehook._frame_view_api";

// The interface, looked up once, at the first frame view seen (its module is loaded by then; nothing is
// imported here). nullptr: not available (an older loom_framehook): views are read through attributes.
const FrameViewAPI* view_api(PyObject* frame) {
  static const FrameViewAPI* api = nullptr;
  static bool looked = false;
  if (looked || strcmp(Py_TYPE(frame)->tp_name, kViewTypeName) != 0) {
    return api;
  }
  looked = true;
  PyObject* name = PyUnicode_FromString(kViewModule);
  PyObject* module = name != nullptr ? PyImport_GetModule(name) : nullptr;
  Py_XDECREF(name);
  PyObject* capsule = module != nullptr ? PyObject_GetAttrString(module, "_frame_view_api") : nullptr;
  Py_XDECREF(module);
  // the struct is static in the extension, which is never unloaded: the pointer outlives the capsule
  void* pointer = capsule != nullptr ? PyCapsule_GetPointer(capsule, kViewCapsule) : nullptr;
  Py_XDECREF(capsule);
  PyErr_Clear();  // run() starts with no exception set: whatever failed above only means "not available"
  auto* found = static_cast<const FrameViewAPI*>(pointer);
  if (found != nullptr && found->version >= 1 && found->size >= sizeof(FrameViewAPI) &&
      found->view_type == Py_TYPE(frame)) {
    api = found;
  }
  return api;
}

struct Env {
  PyObject* frame = nullptr;   // borrowed: the argument
  const FrameViewAPI* view = nullptr;  // set when `frame` is a loom_framehook FrameView read directly
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

int setup_closure(GuardProgram* self, PyObject* frame, Env& env);

// A loom_framehook FrameView read through its C interface: arguments are read per F_LOCAL from the
// frame, globals and builtins borrowed from it (the frame outlives the guard call).
int setup_view_env(GuardProgram* self, PyObject* frame, const FrameViewAPI* api, Env& env) {
  PyObject* g = api->globals(frame);
  if (g == nullptr) {
    return -1;  // an expired view: RuntimeError, as reading its f_locals raises
  }
  env.view = api;
  if (self->needs_globals) {
    env.globals = g;
  }
  if (self->needs_builtins) {
    PyObject* b = api->builtins(frame);
    if (b == nullptr) {
      return -1;
    }
    env.builtins = PyModule_Check(b) ? PyModule_GetDict(b) : b;
  }
  return setup_closure(self, frame, env);
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
  const FrameViewAPI* api = view_api(frame);
  if (api != nullptr && Py_TYPE(frame) == api->view_type) {
    return setup_view_env(self, frame, api, env);
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
  return setup_closure(self, frame, env);
}

// A frame view's closure and code, through its attributes (rarely needed).
int setup_closure(GuardProgram* self, PyObject* frame, Env& env) {
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
        if (env.view != nullptr) {
          PyObject* arg = nullptr;
          int found = env.view->argument(env.frame, in.obj, &arg);
          if (found > 0) {
            v = Py_NewRef(arg);
          } else if (found == 0) {
            PyErr_SetObject(PyExc_KeyError, in.obj);  // as a missing key of f_locals
          }
          break;
        }
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
        v = fetch_closure(in, env.closure, env.code, env.closure_map);
        break;
      case F_CONST:
        v = in.obj;
        Py_INCREF(v);
        break;
      case F_ATTR: {
        PyObject* base = slots[in.src];
        if (in.n == 2) {  // `__dict__`
          v = attr_dict(base, in);
          break;
        }
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
      case C_DICTCONTAINS: {
        PyObject* x = slots[in.src];
        if (PyDict_CheckExact(x)) {  // one lookup; only a colliding key's __eq__ can run user code
          int r = PyDict_Contains(x, in.obj);
          ok = r < 0 ? -1 : (r == in.n);
        } else {
          ok = check_mapping_contains(in, x);
        }
        break;
      }
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
      case C_SAME:
        ok = slots[in.slots[0]] == slots[in.slots[1]];
        break;
      case C_CONSTS:
        ok = check_consts(*in.consts);
        break;
      case C_PY:
        ok = call_check(in.obj, slots, in.slots);
        break;
      case C_EMPTYATTRS:
        ok = check_empty_attrs(in, slots[in.src]);
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

}  // namespace

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

}  // namespace loom_accel
