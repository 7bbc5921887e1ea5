// Global-state specs (C_STATE) built from the tuple loom_guards/_lower.py makes, and read_state: the
// same facts check_state (state.h) reads, as Python values.

#include "state.h"

#include <string>
#include <unordered_map>

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
//  torch_function: None|int, tf_modes: None|int, dispatch_modes: None|int, functorch,
//  matmul_precision, cublas_tf32, cudnn_tf32, fp16_reduction, bf16_reduction: None|code,
//  num_threads: None|int)
StateSpec* parse_state_spec(PyObject* t) {
  PyObject *grad, *inf, *ddt, *det, *detw, *ac, *acc, *tf, *tfm, *dm, *ft;
  PyObject *mmp, *cbt, *cdt, *f16, *b16, *nt;
  if (!PyArg_ParseTuple(t, "OOOOOOOOOOOOOOOOO", &grad, &inf, &ddt, &det, &detw, &ac, &acc, &tf, &tfm, &dm, &ft,
                        &mmp, &cbt, &cdt, &f16, &b16, &nt)) {
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
  struct {
    PyObject* value;
    int* code;
    int limit;
  } codes[] = {{mmp, &s->matmul_precision, 3}, {cbt, &s->cublas_tf32, 2}, {cdt, &s->cudnn_tf32, 2},
               {f16, &s->fp16_reduction, 2}, {b16, &s->bf16_reduction, 2}};
  for (const auto& c : codes) {
    if (c.value == Py_None) {
      continue;
    }
    long code = PyLong_AsLong(c.value);
    if (code == -1 && PyErr_Occurred()) {
      delete s;
      return nullptr;
    }
    if (code < 0 || code > c.limit) {
      PyErr_Format(PyExc_ValueError, "global state code %ld out of range", code);
      delete s;
      return nullptr;
    }
    *c.code = static_cast<int>(code);
  }
  if (nt != Py_None) {
    s->num_threads = PyLong_AsLongLong(nt);
  }
  s->check_context = s->deterministic >= 0 || s->deterministic_warn_only >= 0 || s->matmul_precision >= 0 ||
      s->cublas_tf32 >= 0 || s->cudnn_tf32 >= 0 || s->fp16_reduction >= 0 || s->bf16_reduction >= 0;
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

#if LOOM_CONTEXT_SNAPSHOT

namespace {

// at::Context keeps the matmul precision and TF32 settings private. An explicit instantiation may name
// private members (access is not checked there): each ContextMember instantiation below defines
// member_of(Tag), returning the pointer to one member.
template <typename Tag, typename Tag::type Member>
struct ContextMember {
  friend typename Tag::type member_of(Tag) { return Member; }
};

using Fp32PrecisionMap = std::unordered_map<std::pair<at::Float32Backend, at::Float32Op>, at::Float32Precision,
                                            c10::hash<std::pair<at::Float32Backend, at::Float32Op>>>;

struct MatmulPrecisionTag {
  using type = at::Float32MatmulPrecision at::Context::*;
  friend type member_of(MatmulPrecisionTag);
};
struct CudnnTf32Tag {
  using type = bool at::Context::*;
  friend type member_of(CudnnTf32Tag);
};
struct Fp32PrecisionTag {
  using type = Fp32PrecisionMap at::Context::*;
  friend type member_of(Fp32PrecisionTag);
};

template struct ContextMember<MatmulPrecisionTag, &at::Context::float32_matmul_precision>;
template struct ContextMember<CudnnTf32Tag, &at::Context::allow_tf32_cudnn>;
template struct ContextMember<Fp32PrecisionTag, &at::Context::fp32_precision>;

}  // namespace

int update_context_snapshot(const at::Context& ctx, ContextSnapshot& seen) {
  const Fp32PrecisionMap& map = ctx.*member_of(Fp32PrecisionTag{});
  if (map.size() > seen.map.size()) {
    return -1;
  }
  int precision = static_cast<int>(ctx.*member_of(MatmulPrecisionTag{}));
  int cudnn_tf32 = static_cast<int>(ctx.*member_of(CudnnTf32Tag{}));
  int entries = static_cast<int>(map.size());
  bool same = precision == seen.precision && cudnn_tf32 == seen.cudnn_tf32 && entries == seen.entries;
  seen.precision = precision;
  seen.cudnn_tf32 = cudnn_tf32;
  seen.entries = entries;
  size_t i = 0;
  for (const auto& [key, value] : map) {
    uint32_t entry = static_cast<uint32_t>(key.first) | static_cast<uint32_t>(key.second) << 8 |
        static_cast<uint32_t>(value) << 16;
    same = same && seen.map[i] == entry;
    seen.map[i++] = entry;
  }
  return same ? 1 : 0;
}

#endif

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
    at::Context& ctx = at::globalContext();
    const char* const precisions[] = {"highest", "high", "medium", "mixed"};
    auto tf32 = [](int code) { return code == 2 ? PyUnicode_FromString("mixed") : PyBool_FromLong(code); };
    auto reduction = [](int code) { return Py_BuildValue("(OO)", code == 0 ? Py_True : Py_False, code < 2 ? Py_True : Py_False); };
    std::pair<const char*, PyObject*> items[] = {
        {"grad_mode", PyBool_FromLong(ag.get_grad_mode())},
        {"inference_mode", PyBool_FromLong(ag.get_inference_mode())},
        {"default_dtype", PyLong_FromLong(static_cast<long>(c10::get_default_dtype().toScalarType()))},
        {"deterministic_algorithms", PyBool_FromLong(ctx.deterministicAlgorithms())},
        {"deterministic_warn_only", PyBool_FromLong(ctx.deterministicAlgorithmsWarnOnly())},
        {"autocast", enabled},
        {"autocast_cache", PyBool_FromLong(at::autocast::is_autocast_cache_enabled())},
        {"torch_function", PyLong_FromLong(torch_function_state())},
        {"torch_function_modes", PyLong_FromLongLong(at::impl::PythonTorchFunctionTLS::stack_len())},
        {"dispatch_modes", PyLong_FromLongLong(c10::impl::TorchDispatchModeTLS::stack_len())},
        {"functorch", PyBool_FromLong(functorch_active(tls))},
        {"float32_matmul_precision", PyUnicode_FromString(precisions[matmul_precision_code(ctx)])},
        {"cuda_matmul_allow_tf32", tf32(cublas_tf32_code(ctx))},
        {"cudnn_allow_tf32", tf32(cudnn_tf32_code(ctx))},
        {"cuda_matmul_fp16_reduction", reduction(reduction_code(ctx.allowFP16ReductionCuBLAS()))},
        {"cuda_matmul_bf16_reduction", reduction(reduction_code(ctx.allowBF16ReductionCuBLAS()))},
        {"num_threads", PyLong_FromLong(at::get_num_threads())},
    };
    PyObject* out = PyDict_New();
    bool ok = out != nullptr;
    for (auto& [name, value] : items) {
      ok = ok && value != nullptr && PyDict_SetItemString(out, name, value) == 0;
      Py_XDECREF(value);
    }
    if (!ok) {
      Py_XDECREF(out);
      return nullptr;
    }
    return out;
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
    return nullptr;
  }
}

}  // namespace loom_accel
