/* framehook_internal.h: what crosses file boundaries inside loom_framehook._framehook (private).
 *
 * The extension is a PEP 523 eval-frame hook with a per-code-object cache. Its pieces, in the order a
 * frame meets them:
 *
 *   fh_eval                 (eval_frame.c) the eval function CPython calls for every frame it is about
 *                           to run. Hot path: a thread-local pointer test, the first-entry test, one
 *                           co_extra read and the SKIP flag, then a tail call into the default evaluator.
 *   fh_lookup               (eval_frame.c) the code has stored entries: call each guard (most recently
 *                           used first, skipping entries made for another callback or other globals)
 *                           with a FrameView; the first truthy one runs its replacement.
 *   fh_call_callback        (eval_frame.c) nothing matched: call this thread's callback with a FrameView
 *                           and act on what it returns (None, SKIP, a code object, an Entry).
 *   fh_run_replacement      (eval_frame.c) run a replacement code object for a function frame: build a
 *                           function with the frame's globals, builtins and closure, call it with the
 *                           frame's bound arguments, then discard the original, unstarted frame.
 *
 * The other files:
 *
 *   thread_state.c          per-thread state (FhThread), installing and removing the eval function
 *                           (chaining to a foreign one found in place), setting a thread's callback
 *   code_cache.c            per-code state in co_extra (CodeExtra: SKIP mode, run-only flag, entries),
 *                           clear()
 *   stack_guard.c           where this thread's C stack ends (the eval function refuses new frames
 *                           with RecursionError before it overflows)
 *   entry.c                 the Entry type and the replacement check
 *   frame_view.c            the FrameView type (eval_frame.c hands views out and recycles them), and
 *                           its C interface for other extensions (frame_view_api.h, a capsule)
 *   stats.c                 the counters and stats()
 *   test_hooks.c            a do-nothing and a "foreign" eval function, for benchmarks and tests only
 *   module.c                the module: SKIP, the API functions, callback(), PyInit
 *
 * Interpreter internals are reached only through frame_compat.h (one small file per version).
 *
 * Per-thread state (FhThread) is a Python object stored in the thread state's dict, so it is
 * released, and the thread's callback dropped, when the thread exits; a C thread-local pointer to it
 * keeps the hot path to one load. Per-code state (CodeExtra) lives in co_extra and is freed with the
 * code object. Everything else is module-global and protected by the GIL.
 *
 * Everything declared here has hidden visibility (FH_INTERNAL): the shared object exports only
 * PyInit__framehook, and the hot path reaches shared variables PC-relative, not through the GOT.
 * Functions the hot paths need inlined are `static inline` here.
 */
#ifndef LOOM_FRAMEHOOK_INTERNAL_H
#define LOOM_FRAMEHOOK_INTERNAL_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>

#include "frame_compat.h"

#if defined(__GNUC__)
#define FH_LIKELY(x) __builtin_expect(!!(x), 1)
#define FH_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define FH_NOINLINE __attribute__((noinline))
#define FH_INTERNAL __attribute__((visibility("hidden")))
#else
#define FH_LIKELY(x) (x)
#define FH_UNLIKELY(x) (x)
#define FH_NOINLINE
#define FH_INTERNAL
#endif

#if defined(__GNUC__)
#define FH_THREAD_LOCAL __thread
#else
#define FH_THREAD_LOCAL _Thread_local
#endif

/* ------------------------------------------------------------------------------------------------ */
/* Objects                                                                                          */
/* ------------------------------------------------------------------------------------------------ */

typedef struct {
    PyObject_HEAD
    PyObject *code;      /* the replacement code object */
    PyObject *guard;     /* callable(frame_view) -> truthy */
    PyObject *callback;  /* NULL, or: served only while it is this thread's callback (checked in C) */
    PyObject *globals;   /* NULL, or: served only to frames whose globals are this dict (checked in C) */
    Py_ssize_t hits;
} EntryObject;

typedef struct {
    PyObject_HEAD
    fh_frame *frame;     /* NULL once the call that received the view has returned */
    PyObject *locals;    /* the arguments dict, built on first access */
} FrameViewObject;

typedef struct {
    PyObject_HEAD
    PyObject *callback;  /* strong, NULL: off for this thread */
    int disabled;        /* > 0 while this thread runs a callback or a guard */
    PyObject *run_as_is; /* the replacement code the hook is about to call: runs without callback */
    FrameViewObject *spare_view; /* one recycled view, to keep view allocation off the hit path */
} FhThread;

/* This OS thread's view of loom_framehook, in one thread-local block (one TLS address computation;
 * static in eval_frame.c, fh_local_block() elsewhere):
 *   thread     our per-thread object for `tstate` (borrowed: that thread state's dict owns it), or NULL
 *   tstate     the thread state `thread` was looked up for: the eval function compares it with the
 *              thread state it is handed, so an OS thread that runs several thread states one after
 *              the other (PyGILState cycles, interpreter switches) never uses another one's callback
 *   forwarding the frame being forwarded to the chained eval function: if it comes back to us (the
 *              foreign function chains to us too), it runs on the default evaluator, no loop */
typedef struct {
    FhThread *thread;
    PyThreadState *tstate;
    fh_frame *forwarding;
    uintptr_t stack_limit; /* the lowest stack address at which a new frame may start (0: unknown) */
} FhLocal;

/* CodeExtra.skip: how frames of a code run without ever reaching the callback. */
#define FH_SKIP 1           /* run normally; their callees are hooked as usual */
#define FH_SKIP_RECURSIVE 2 /* run with this thread's callback off until they return: callees too */

/* A run-only code whose entries missed this many frames in a row is marked FH_SKIP: walking guards
 * that keep failing must not cost more than the few frames it takes to notice. */
#define FH_RUN_ONLY_MAX_MISSES 32

/* Per-code state, in the code object's co_extra slot. */
typedef struct CodeExtra {
    struct CodeExtra *prev, *next; /* every CodeExtra, for clear() */
    int skip;                      /* 0, FH_SKIP or FH_SKIP_RECURSIVE */
    int run_only;                  /* serve stored entries, but never call the callback on a miss */
    Py_ssize_t run_only_misses;    /* consecutive misses while run_only */
    Py_ssize_t n, cap;
    PyObject **entries;            /* strong references, most recently used first */
    unsigned long long version;    /* bumped on every change to entries */
} CodeExtra;

typedef struct {
    unsigned long long frames;          /* first entries considered (callback set, hook on) */
    unsigned long long skipped;         /* ... run normally because the code is marked SKIP */
    unsigned long long unhooked;        /* ... of those, run with the callback off for their callees */
    unsigned long long run_only_misses; /* ... run normally: run-only code, no entry matched */
    unsigned long long stack_refused;   /* ... refused with RecursionError: the C stack was nearly full */
    unsigned long long cache_hits;      /* ... served by a stored entry */
    unsigned long long cache_misses;    /* ... whose code had entries but no guard passed */
    unsigned long long callback_calls;  /* callback invocations */
    unsigned long long guard_calls;     /* guard invocations */
    unsigned long long replaced;        /* frames run with a replacement code object */
    unsigned long long refused;         /* replacements returned for module/class frames: ignored */
    unsigned long long errors;          /* exceptions from callbacks/guards, and invalid results */
} FhStats;

/* ------------------------------------------------------------------------------------------------ */
/* eval_frame.c                                                                                     */
/* ------------------------------------------------------------------------------------------------ */

FH_INTERNAL extern int fh_trace_callbacks; /* 1: trace/profile functions see callbacks and guards */

FH_INTERNAL PyObject *fh_eval(PyThreadState *tstate, fh_frame *frame, int throwflag);
/* This OS thread's FhLocal block. The block itself is static in eval_frame.c: with an extern TLS
 * variable gcc 12 hoists the TLS descriptor's address into a register at the top of fh_eval (one more
 * instruction on the skip path than with a static one). The other files, off the hot path, reach it
 * through this call. */
FH_INTERNAL FhLocal *fh_local_block(void);

/* ------------------------------------------------------------------------------------------------ */
/* thread_state.c                                                                                   */
/* ------------------------------------------------------------------------------------------------ */

FH_INTERNAL extern _PyFrameEvalFunction fh_chained; /* foreign eval function we chain to (NULL: default) */
FH_INTERNAL extern Py_ssize_t fh_active_threads;    /* threads with a callback set */

/* Create the per-thread state's type and key; 0, or -1 with an exception set. */
FH_INTERNAL int fh_thread_state_init(void);
/* Point this thread's FhLocal block at `tstate`'s object (NULL if it has none). Returns it, borrowed. */
FH_INTERNAL FhThread *fh_thread_rebind(PyThreadState *tstate);
/* This thread's state, created on demand. Returns a borrowed reference, or NULL (error set only if
 * create was requested and failed). */
FH_INTERNAL FhThread *fh_thread_get(int create);
/* A thread gained / lost its callback: the first installs the eval function, the last removes it. */
FH_INTERNAL void fh_activate(void);
FH_INTERNAL void fh_deactivate(void);
/* Set this thread's callback (None: off); returns the previous one (a new reference; None if none). */
FH_INTERNAL PyObject *fh_set_callback(PyObject *cb);
/* The main interpreter's eval function, and replacing it. */
FH_INTERNAL _PyFrameEvalFunction fh_current_eval(void);
FH_INTERNAL void fh_set_eval(_PyFrameEvalFunction f);

/* ------------------------------------------------------------------------------------------------ */
/* code_cache.c                                                                                     */
/* ------------------------------------------------------------------------------------------------ */

FH_INTERNAL extern Py_ssize_t fh_extra_index; /* our co_extra slot */

/* Request the co_extra index; 0, or -1 with an exception set. */
FH_INTERNAL int fh_cache_init(void);
/* The code's state, created on demand (NULL with an exception set on failure). */
FH_INTERNAL CodeExtra *fh_extra_get_or_create(PyCodeObject *code);
/* Put a new entry first. Steals nothing; takes a new reference. 0, or -1 with an exception set. */
FH_INTERNAL int fh_extra_push_front(CodeExtra *extra, PyObject *entry);
/* Drop the entries and the SKIP mark of `code`, or of every code object if `code` is NULL; 0, or -1
 * with an exception set. */
FH_INTERNAL int fh_cache_clear(PyCodeObject *code);
/* How many code objects carry state, how many entries they hold, how many are marked SKIP (either
 * kind), and how many are run-only. */
FH_INTERNAL void fh_cache_sizes(Py_ssize_t *codes, Py_ssize_t *entries, Py_ssize_t *skipped_codes,
                                Py_ssize_t *run_only_codes);

/* The code's state, or NULL: one co_extra read. */
static inline CodeExtra *fh_extra_get(PyCodeObject *code)
{
    return (CodeExtra *)fh_code_extra(code, fh_extra_index);
}

/* ------------------------------------------------------------------------------------------------ */
/* entry.c                                                                                          */
/* ------------------------------------------------------------------------------------------------ */

FH_INTERNAL extern PyTypeObject EntryType;

/* 0 if `replacement` can run in place of `original` (same parameters and free variables), else -1
 * with ValueError naming every difference. */
FH_INTERNAL int fh_check_replacement(PyCodeObject *original, PyCodeObject *replacement);

/* The number of argument slots at the start of a frame's fast locals. */
static inline Py_ssize_t fh_code_nargs(PyCodeObject *co)
{
    return co->co_argcount + co->co_kwonlyargcount + ((co->co_flags & CO_VARARGS) ? 1 : 0) +
           ((co->co_flags & CO_VARKEYWORDS) ? 1 : 0);
}

/* ------------------------------------------------------------------------------------------------ */
/* frame_view.c                                                                                     */
/* ------------------------------------------------------------------------------------------------ */

FH_INTERNAL extern PyTypeObject FrameViewType;
/* A new capsule holding the C interface to FrameView (frame_view_api.h); NULL with an exception set. */
FH_INTERNAL PyObject *fh_frame_view_api_capsule(void);

/* ------------------------------------------------------------------------------------------------ */
/* stats.c                                                                                          */
/* ------------------------------------------------------------------------------------------------ */

FH_INTERNAL extern FhStats fh_stats;

FH_INTERNAL PyObject *fh_py_stats(PyObject *module, PyObject *noargs);
FH_INTERNAL PyObject *fh_py_reset_stats(PyObject *module, PyObject *noargs);

/* ------------------------------------------------------------------------------------------------ */
/* test_hooks.c                                                                                     */
/* ------------------------------------------------------------------------------------------------ */

FH_INTERNAL PyObject *fh_py_install_test_hook(PyObject *module, PyObject *arg);
FH_INTERNAL PyObject *fh_py_test_hook_frames(PyObject *module, PyObject *noargs);
FH_INTERNAL PyObject *fh_py_current_eval_name(PyObject *module, PyObject *noargs);

/* ------------------------------------------------------------------------------------------------ */
/* module.c                                                                                         */
/* ------------------------------------------------------------------------------------------------ */

/* The callback results that set a code's strategy: SKIP, SKIP_RECURSIVE, RUN_ONLY (singletons). */
FH_INTERNAL extern PyObject *fh_skip;
FH_INTERNAL extern PyObject *fh_skip_recursive;
FH_INTERNAL extern PyObject *fh_run_only;

/* ------------------------------------------------------------------------------------------------ */
/* stack_guard.c                                                                                    */
/* ------------------------------------------------------------------------------------------------ */

/* The lowest address this OS thread's C stack may reach before a new Python frame: the stack's
 * lower end plus a margin for error handling and C code between frames. 0 where it cannot be known
 * (then nothing is checked). Computed once per OS thread (fh_thread_rebind). */
FH_INTERNAL uintptr_t fh_stack_limit(void);

/* The current stack position, for comparing with fh_stack_limit(). */
#if defined(__GNUC__)
#define FH_STACK_POSITION() ((uintptr_t)__builtin_frame_address(0))
#else
#define FH_STACK_POSITION() ((uintptr_t)0)
#endif

#endif /* LOOM_FRAMEHOOK_INTERNAL_H */
