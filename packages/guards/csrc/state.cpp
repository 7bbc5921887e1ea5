// Global-state specs (C_STATE) built from the tuple loom_guards/_lower.py makes, and read_state: the
// same facts check_state (state.h) reads, as Python values.

#include "state.h"

#include <string>

namespace loom_accel {

namespace {

int parse_tristate(PyObject* obj) {  // None -> -1, else truth
  if (obj == Py_None) {
    return -1;
  }
  return PyObject_IsTrue(obj);
}

}  // namespace

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

}  // namespace loom_accel
