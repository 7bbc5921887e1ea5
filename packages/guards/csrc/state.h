// torch's global (thread-local) state as the accelerator reads it: the C_STATE check (it runs inside the
// check loop in run.cpp) and the readers it shares with read_state (state.cpp). `static` for the same
// reason as in tensor.h: GCC inlines the one call in the loop.

#pragma once

#include "accel.h"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <ATen/PythonTorchFunctionTLS.h>
#include <ATen/autocast_mode.h>
#include <c10/core/DefaultDtype.h>
#include <c10/core/GradMode.h>
#include <c10/core/InferenceMode.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <c10/core/impl/TorchDispatchModeTLS.h>
#include <torch/version.h>

#include <array>
#include <cstdint>
#include <exception>
#include <type_traits>

#pragma GCC visibility push(hidden)

namespace loom_accel {

static inline int torch_function_state() {
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

static inline bool functorch_active(const c10::impl::LocalDispatchKeySet& tls) {
  return tls.included_.has(c10::DispatchKey::FuncTorchDynamicLayerFrontMode) ||
      tls.included_.has(c10::DispatchKey::FuncTorchDynamicLayerBackMode);
}

// The matmul precision and TF32 settings, in the codes of StateSpec. torch raises when asked for them
// after the legacy API (set_float32_matmul_precision, allow_tf32) and the new one (fp32_precision) were
// mixed; that answer is a state of its own ("mixed"), as for the Python readers in _state.py.
static inline int matmul_precision_code(const at::Context& ctx) {
  try {
    return static_cast<int>(ctx.float32MatmulPrecision());  // HIGHEST, HIGH, MEDIUM
  } catch (const std::exception&) {
    return 3;
  }
}

static inline int cublas_tf32_code(const at::Context& ctx) {
  try {
    return ctx.allowTF32CuBLAS() ? 1 : 0;
  } catch (const std::exception&) {
    return 2;
  }
}

static inline int cudnn_tf32_code(const at::Context& ctx) {
  try {
    return ctx.allowTF32CuDNN() ? 1 : 0;
  } catch (const std::exception&) {
    return 2;
  }
}

struct BackendCodes {
  int matmul_precision;
  int cublas_tf32;
  int cudnn_tf32;
};

static inline BackendCodes read_backend_codes(const at::Context& ctx) {
  return {matmul_precision_code(ctx), cublas_tf32_code(ctx), cudnn_tf32_code(ctx)};
}

// In torch 2.13 the three accessors above resolve and cross-check the settings through a hash map on
// every call: about 100-150 ns together, and about 10 us when they raise. A check therefore compares a
// copy of the settings they read - the legacy matmul precision and cuDNN TF32 members and the entries of
// the fp32_precision map, all private to at::Context (state.cpp reads them) - with the copy taken when
// it last called them, and calls them only when the settings changed. The copy must cover everything
// the accessors read: checked against torch 2.13's at::Context (its disassembly: members at 0x418,
// 0x420 and the map at 0x440); other versions call the accessors every time until someone checks them.
#if TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR == 13
#define LOOM_CONTEXT_SNAPSHOT 1

struct ContextSnapshot {
  int precision = -1;  // -1: nothing read yet
  int cudnn_tf32 = -1;
  int entries = 0;
  std::array<uint32_t, 16> map{};  // backend | op << 8 | precision << 16, in the map's order
};

// Compares the settings with `seen` and stores them there: 1 when they were unchanged, 0 when they
// changed, -1 when they do not fit in a snapshot (`seen` is then left alone).
int update_context_snapshot(const at::Context& ctx, ContextSnapshot& seen);
#else
#define LOOM_CONTEXT_SNAPSHOT 0
#endif

// The codes of the current settings: the accessors' answers, reused while the settings are unchanged
// (the check loop runs with the GIL held, so one cache serves every program).
static inline BackendCodes backend_codes(const at::Context& ctx) {
#if LOOM_CONTEXT_SNAPSHOT
  static ContextSnapshot seen;
  static BackendCodes codes;
  int unchanged = update_context_snapshot(ctx, seen);
  if (unchanged == 1) {
    return codes;
  }
  if (unchanged == 0) {
    codes = read_backend_codes(ctx);
    return codes;
  }
#endif
  return read_backend_codes(ctx);
}

// A CuBLASReductionOption as its number (older torch answers a bool: allowed or not, split-K allowed).
template <typename T>
static inline int reduction_code(T option) {
  if constexpr (std::is_same_v<T, bool>) {
    return option ? 0 : 1;
  } else {
    return static_cast<int>(option);
  }
}

// Whether the state is as `s` expects (unchecked fields skipped): 1 or 0, never an error.
static inline int check_state(const StateSpec& s) noexcept {
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
    if (s.check_context) {
      at::Context& ctx = at::globalContext();
      if (s.deterministic >= 0 && static_cast<int>(ctx.deterministicAlgorithms()) != s.deterministic) {
        return 0;
      }
      if (s.deterministic_warn_only >= 0 &&
          static_cast<int>(ctx.deterministicAlgorithmsWarnOnly()) != s.deterministic_warn_only) {
        return 0;
      }
      if (s.matmul_precision >= 0 || s.cublas_tf32 >= 0 || s.cudnn_tf32 >= 0) {
        BackendCodes codes = backend_codes(ctx);
        if ((s.matmul_precision >= 0 && codes.matmul_precision != s.matmul_precision) ||
            (s.cublas_tf32 >= 0 && codes.cublas_tf32 != s.cublas_tf32) ||
            (s.cudnn_tf32 >= 0 && codes.cudnn_tf32 != s.cudnn_tf32)) {
          return 0;
        }
      }
      if (s.fp16_reduction >= 0 && reduction_code(ctx.allowFP16ReductionCuBLAS()) != s.fp16_reduction) {
        return 0;
      }
      if (s.bf16_reduction >= 0 && reduction_code(ctx.allowBF16ReductionCuBLAS()) != s.bf16_reduction) {
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
    if (s.num_threads >= 0 && at::get_num_threads() != s.num_threads) {
      return 0;
    }
    return 1;
  } catch (...) {
    return 0;
  }
}

}  // namespace loom_accel

#pragma GCC visibility pop
