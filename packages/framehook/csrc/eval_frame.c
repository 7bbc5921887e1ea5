/* eval_frame.c: the eval function and everything it does to a frame.
 *
 *   fh_eval                 the eval function CPython calls for every frame it is about to run.
 *                           Hot path: a thread-local pointer test, the first-entry test, one co_extra
 *                           read and the SKIP flag, then a tail call into the default evaluator.
 *   fh_lookup               the code has stored entries: call each guard (most recently used first,
 *                           skipping entries made for another callback or other globals, compared
 *                           here) with a FrameView; the first truthy one runs its replacement. A miss calls
 *                           the callback, or runs the frame normally if the code is run-only.
 *   fh_run_unhooked         a SKIP_RECURSIVE code: run the frame with this thread's callback off, so
 *                           its callees never reach the hook (with no other thread hooked, the eval
 *                           function is removed meanwhile and CPython inlines their calls again).
 *   fh_stack_exhausted      the C stack is nearly full: refuse the frame with RecursionError.
 *   fh_call_callback        nothing matched: call this thread's callback with a FrameView and act on
 *                           what it returns (None, SKIP, a code object, an Entry).
 *   fh_run_replacement      run a replacement code object for a function frame: build a function with
 *                           the frame's globals, builtins and closure, call it with the frame's bound
 *                           arguments, then discard the original, unstarted frame.
 *
 * "Run normally" (fh_run_default) is the default evaluator, or the foreign eval function found at
 * install time (fh_run_chained, which breaks loops). This file also owns the thread-local FhLocal block
 * the hot path reads first.
 *
 * These stay in one translation unit so that the compiler sees the whole hot path at once (tail calls,
 * inlining, constant propagation into the cold paths); what they use from other files is either a
 * never-inlined function reached on a slow path or `static inline` in framehook_internal.h.
 */
#include "framehook_internal.h"

int fh_trace_callbacks = 0;

/* This OS thread's FhLocal block (see framehook_internal.h for its fields and for why it is static). */
static FH_THREAD_LOCAL FhLocal fh_local = {NULL, NULL, NULL, 0};

FhLocal *fh_local_block(void) { return &fh_local; }

/* ------------------------------------------------------------------------------------------------ */
/* Running a frame normally                                                                         */
/* ------------------------------------------------------------------------------------------------ */

/* Run a frame on the foreign eval function `chained` (NULL: the default evaluator), breaking loops. */
static FH_NOINLINE PyObject *fh_forward(PyThreadState *tstate, fh_frame *frame, int throwflag,
                                        _PyFrameEvalFunction chained)
{
    if (chained == NULL || fh_local.forwarding == frame) {
        return _PyEval_EvalFrameDefault(tstate, frame, throwflag);
    }
    fh_frame *outer = fh_local.forwarding;
    fh_local.forwarding = frame;
    PyObject *result = chained(tstate, frame, throwflag);
    fh_local.forwarding = outer;
    return result;
}

/* Run a frame normally: the default evaluator, or the foreign eval function found at install time. */
static inline PyObject *fh_run_default(PyThreadState *tstate, fh_frame *frame, int throwflag)
{
    if (FH_UNLIKELY(fh_chained != NULL)) {
        return fh_forward(tstate, frame, throwflag, fh_chained);
    }
    return _PyEval_EvalFrameDefault(tstate, frame, throwflag);
}

/* ------------------------------------------------------------------------------------------------ */
/* Frame views for callbacks and guards                                                             */
/* ------------------------------------------------------------------------------------------------ */

/* A view of `frame` for a callback or guard call (this thread's recycled one if it has one). */
static FrameViewObject *fh_view_acquire(FhThread *t, fh_frame *frame)
{
    FrameViewObject *view = t->spare_view;
    if (view != NULL) {
        t->spare_view = NULL;
    }
    else {
        view = PyObject_New(FrameViewObject, &FrameViewType);
        if (view == NULL) {
            return NULL;
        }
        view->locals = NULL;
    }
    view->frame = frame;
    return view;
}

/* The call that received the view is over: expire it, then recycle it if nobody kept it. */
static void fh_view_release(FhThread *t, FrameViewObject *view)
{
    view->frame = NULL;
    Py_CLEAR(view->locals);
    if (Py_REFCNT(view) == 1 && t->spare_view == NULL) {
        t->spare_view = view;
    }
    else {
        Py_DECREF(view);
    }
}

/* ------------------------------------------------------------------------------------------------ */
/* Running a replacement                                                                            */
/* ------------------------------------------------------------------------------------------------ */

/* A frame whose code may be replaced: a function's own frame (not a module or class body, not code
 * run by exec() with a locals mapping). */
static inline int fh_is_function_frame(fh_frame *frame, PyCodeObject *code)
{
    PyObject *func = fh_frame_function(frame);
    return fh_frame_locals_mapping(frame) == NULL && (code->co_flags & CO_OPTIMIZED) && func != NULL &&
           PyFunction_Check(func);
}

/* A new function that runs `code` with the original function's globals, builtins and closure, and
 * its name and qualified name (a generator or coroutine takes its names from the function).
 *
 * It is built afresh for every run. Caching one per entry would keep the last call's closure cells
 * (and the globals) alive after the call, and, since code objects are invisible to the cycle
 * collector, would make globals -> function -> code -> co_extra -> entry -> cached function ->
 * globals an uncollectable cycle. Returns a new reference. */
static PyObject *fh_replacement_function(PyObject *code, PyFunctionObject *original)
{
    PyObject *func = PyFunction_New(code, original->func_globals);
    if (func == NULL) {
        return NULL;
    }
    PyFunctionObject *f = (PyFunctionObject *)func;
    /* The frame's builtins are the original function's, even if its globals' __builtins__ changed. */
    Py_SETREF(f->func_builtins, Py_NewRef(original->func_builtins));
    Py_SETREF(f->func_name, Py_NewRef(original->func_name));
    Py_SETREF(f->func_qualname, Py_NewRef(original->func_qualname));
    if (original->func_closure != NULL && PyFunction_SetClosure(func, original->func_closure) < 0) {
        Py_DECREF(func);
        return NULL;
    }
    return func;
}

#define FH_SMALL_ARGS 8

/* Run `code` instead of the (function) frame's own code, with the frame's arguments, and dispose of
 * the frame. Returns the result, or NULL with an exception set. */
static FH_NOINLINE PyObject *fh_run_replacement(PyThreadState *tstate, FhThread *t, fh_frame *frame,
                                                PyObject *code)
{
    PyCodeObject *co = fh_frame_code(frame);
    PyObject **lp = fh_frame_localsplus(frame);
    PyObject *result = NULL;
    PyObject *kwnames = NULL;
    PyObject *small[FH_SMALL_ARGS + 1];
    PyObject **stack = small;

    fh_stats.replaced++;
    PyObject *func = fh_replacement_function(code, (PyFunctionObject *)fh_frame_function(frame));
    if (func == NULL) {
        goto done;
    }
    int argc = co->co_argcount, kwonly = co->co_kwonlyargcount;
    int slot = argc + kwonly;
    PyObject *varargs = (co->co_flags & CO_VARARGS) ? lp[slot++] : NULL;
    PyObject *varkw = (co->co_flags & CO_VARKEYWORDS) ? lp[slot++] : NULL;
    Py_ssize_t nvar = varargs ? PyTuple_GET_SIZE(varargs) : 0;
    Py_ssize_t nkw = kwonly + (varkw ? PyDict_GET_SIZE(varkw) : 0);
    Py_ssize_t npos = argc + nvar;
    Py_ssize_t total = npos + nkw;
    if (total > FH_SMALL_ARGS) {
        stack = PyMem_Malloc((size_t)(total + 1) * sizeof(PyObject *));
        if (stack == NULL) {
            PyErr_NoMemory();
            goto done;
        }
    }
    PyObject **args = stack + 1; /* stack[0] is scratch space for PY_VECTORCALL_ARGUMENTS_OFFSET */
    for (int i = 0; i < argc; i++) {
        args[i] = lp[i];
    }
    for (Py_ssize_t i = 0; i < nvar; i++) {
        args[argc + i] = PyTuple_GET_ITEM(varargs, i);
    }
    if (nkw > 0) {
        kwnames = PyTuple_New(nkw);
        if (kwnames == NULL) {
            goto done;
        }
        for (int i = 0; i < kwonly; i++) {
            PyTuple_SET_ITEM(kwnames, i, Py_NewRef(PyTuple_GET_ITEM(co->co_localsplusnames, argc + i)));
            args[npos + i] = lp[argc + i];
        }
        if (varkw != NULL) {
            Py_ssize_t pos = 0, k = kwonly;
            PyObject *key, *value;
            while (PyDict_Next(varkw, &pos, &key, &value)) {
                PyTuple_SET_ITEM(kwnames, k, Py_NewRef(key));
                args[npos + k] = value;
                k++;
            }
        }
    }
    /* The replacement's frame must run as is: tell the hook, which will see it next. */
    PyObject *outer = t->run_as_is;
    t->run_as_is = code;
    Py_INCREF(t);
    result = PyObject_Vectorcall(func, args, (size_t)npos | PY_VECTORCALL_ARGUMENTS_OFFSET, kwnames);
    t->run_as_is = outer;
    Py_DECREF(t);
done:
    if (stack != small) {
        PyMem_Free(stack);
    }
    Py_XDECREF(kwnames);
    Py_XDECREF(func);
    fh_frame_discard(tstate, frame);
    return result;
}

/* ------------------------------------------------------------------------------------------------ */
/* Running a SKIP_RECURSIVE frame                                                                   */
/* ------------------------------------------------------------------------------------------------ */

/* Run the frame with this thread's callback off until it returns. The thread gives up its callback
 * the way set_callback(None) would, so if it was the only hooked thread the interpreter-wide eval
 * function is removed: the frame's callees are inlined by CPython again (no C recursion, no hook cost
 * at all). A callback set inside (an explicitly compiled function called from here) is set and
 * restored as usual; if one is still set on return, it wins over ours. */
static FH_NOINLINE PyObject *fh_run_unhooked(PyThreadState *tstate, FhThread *t, fh_frame *frame)
{
    fh_stats.skipped++;
    if (t->callback == NULL) {
        return fh_run_default(tstate, frame, 0); /* the callback that said SKIP_RECURSIVE removed itself */
    }
    fh_stats.unhooked++;
    _PyFrameEvalFunction chained = fh_chained; /* removing ours may forget it */
    PyObject *callback = t->callback;          /* t's reference moves here */
    t->callback = NULL;
    Py_INCREF(t);
    fh_deactivate();
    PyObject *result = (chained != NULL) ? fh_forward(tstate, frame, 0, chained)
                                         : _PyEval_EvalFrameDefault(tstate, frame, 0);
    if (t->callback == NULL) {
        t->callback = callback;
        fh_activate();
    }
    else {
        Py_DECREF(callback);
    }
    Py_DECREF(t);
    return result;
}

/* ------------------------------------------------------------------------------------------------ */
/* The callback and the cache                                                                       */
/* ------------------------------------------------------------------------------------------------ */

/* Callbacks and guards are the hook's own machinery: like a trace function's own frames, they are
 * hidden from sys.settrace/sys.setprofile/sys.monitoring tools (unless set_trace_callbacks(True)),
 * and they run with the hook off for this thread. */
static inline int fh_machinery_enter(PyThreadState *tstate, FhThread *t)
{
    Py_INCREF(t);
    t->disabled++;
    if (!fh_trace_callbacks) {
        PyThreadState_EnterTracing(tstate);
        return 1;
    }
    return 0;
}

static inline void fh_machinery_leave(PyThreadState *tstate, FhThread *t, int hidden)
{
    if (hidden) {
        PyThreadState_LeaveTracing(tstate);
    }
    t->disabled--;
    Py_DECREF(t);
}

static PyObject *fh_fail(PyThreadState *tstate, fh_frame *frame)
{
    fh_stats.errors++;
    fh_frame_discard(tstate, frame);
    return NULL;
}

static FH_NOINLINE PyObject *fh_call_callback(PyThreadState *tstate, FhThread *t, fh_frame *frame,
                                              PyCodeObject *code)
{
    fh_stats.callback_calls++;
    FrameViewObject *view = fh_view_acquire(t, frame);
    if (view == NULL) {
        return fh_fail(tstate, frame);
    }
    PyObject *callback = Py_NewRef(t->callback);
    int hidden = fh_machinery_enter(tstate, t);
    PyObject *result = PyObject_CallOneArg(callback, (PyObject *)view);
    fh_view_release(t, view);
    fh_machinery_leave(tstate, t, hidden);
    Py_DECREF(callback);
    if (result == NULL) {
        return fh_fail(tstate, frame);
    }
    if (result == Py_None) {
        Py_DECREF(result);
        return fh_run_default(tstate, frame, 0);
    }
    if (result == fh_skip || result == fh_skip_recursive || result == fh_run_only) {
        CodeExtra *extra = fh_extra_get_or_create(code);
        if (extra == NULL) {
            Py_DECREF(result);
            return fh_fail(tstate, frame);
        }
        if (result == fh_run_only) {
            extra->run_only = 1;
            extra->run_only_misses = 0;
        }
        else {
            extra->skip = (result == fh_skip) ? FH_SKIP : FH_SKIP_RECURSIVE;
        }
        Py_DECREF(result);
        if (extra->skip == FH_SKIP_RECURSIVE) {
            return fh_run_unhooked(tstate, t, frame);
        }
        return fh_run_default(tstate, frame, 0);
    }
    int is_entry = PyObject_TypeCheck(result, &EntryType);
    if (!is_entry && !PyCode_Check(result)) {
        PyErr_Format(PyExc_TypeError,
                     "loom_framehook callback must return None, SKIP, a code object or an Entry, not %.200s",
                     Py_TYPE(result)->tp_name);
        Py_DECREF(result);
        return fh_fail(tstate, frame);
    }
    PyObject *replacement = is_entry ? ((EntryObject *)result)->code : result;
    if (replacement == NULL) {
        PyErr_SetString(PyExc_TypeError, "loom_framehook callback returned a cleared Entry");
        Py_DECREF(result);
        return fh_fail(tstate, frame);
    }
    if (!fh_is_function_frame(frame, code)) {
        /* Module and class bodies (and exec'd code) are never replaced: run them as they are. */
        fh_stats.refused++;
        Py_DECREF(result);
        return fh_run_default(tstate, frame, 0);
    }
    if (fh_check_replacement(code, (PyCodeObject *)replacement) < 0) {
        Py_DECREF(result);
        return fh_fail(tstate, frame);
    }
    if (is_entry) {
        CodeExtra *extra = fh_extra_get_or_create(code);
        if (extra == NULL || fh_extra_push_front(extra, result) < 0) {
            Py_DECREF(result);
            return fh_fail(tstate, frame);
        }
    }
    Py_INCREF(replacement);
    PyObject *out = fh_run_replacement(tstate, t, frame, replacement);
    Py_DECREF(replacement);
    Py_DECREF(result);
    return out;
}

/* A run-only code's entries all failed: run the frame normally. Past FH_RUN_ONLY_MAX_MISSES in a row
 * the code is marked SKIP (its entries stay stored, unused, until clear()). A guard may have called
 * clear() meanwhile: the extra is still valid (it lives as long as the code), and its flags say so. */
static FH_NOINLINE PyObject *fh_run_only_miss(PyThreadState *tstate, fh_frame *frame, CodeExtra *extra)
{
    fh_stats.run_only_misses++;
    if (extra->run_only && ++extra->run_only_misses >= FH_RUN_ONLY_MAX_MISSES && extra->skip == 0) {
        extra->skip = FH_SKIP;
    }
    return fh_run_default(tstate, frame, 0);
}

/* The code has stored entries: try their guards, most recently used first. */
static FH_NOINLINE PyObject *fh_lookup(PyThreadState *tstate, FhThread *t, fh_frame *frame, PyCodeObject *code,
                                       CodeExtra *extra)
{
    FrameViewObject *view = fh_view_acquire(t, frame);
    if (view == NULL) {
        return fh_fail(tstate, frame);
    }
    EntryObject *hit = NULL;
    int failed = 0;
    int hidden = fh_machinery_enter(tstate, t);
    for (Py_ssize_t i = 0; i < extra->n; i++) {
        EntryObject *entry = (EntryObject *)Py_NewRef(extra->entries[i]);
        unsigned long long version = extra->version;
        if (FH_UNLIKELY(entry->guard == NULL || entry->code == NULL)) {
            Py_DECREF(entry); /* cleared by the cycle collector: never matches */
            continue;
        }
        if ((entry->callback != NULL && entry->callback != t->callback) ||
            (entry->globals != NULL && entry->globals != fh_frame_globals(frame))) {
            Py_DECREF(entry); /* another compiler's entry, or other globals: not this frame's */
            continue;
        }
        fh_stats.guard_calls++;
        PyObject *verdict = PyObject_CallOneArg(entry->guard, (PyObject *)view);
        int truth = -1;
        if (verdict != NULL) {
            truth = (verdict == Py_True) ? 1 : (verdict == Py_False ? 0 : PyObject_IsTrue(verdict));
            Py_DECREF(verdict);
        }
        if (truth < 0) {
            Py_DECREF(entry);
            failed = 1;
            break;
        }
        if (truth) {
            hit = entry;
            if (i > 0 && extra->version == version) {
                /* Most recently used first. */
                memmove(extra->entries + 1, extra->entries, (size_t)i * sizeof(PyObject *));
                extra->entries[0] = (PyObject *)entry;
                extra->version++;
            }
            break;
        }
        Py_DECREF(entry);
        if (extra->version != version) {
            break; /* a guard changed this code's entries: count it as a miss, the callback decides */
        }
    }
    fh_view_release(t, view);
    fh_machinery_leave(tstate, t, hidden);
    if (failed) {
        return fh_fail(tstate, frame);
    }
    if (hit == NULL) {
        fh_stats.cache_misses++;
        if (extra->run_only) {
            return fh_run_only_miss(tstate, frame, extra);
        }
        return fh_call_callback(tstate, t, frame, code);
    }
    extra->run_only_misses = 0;
    fh_stats.cache_hits++;
    hit->hits++;
    PyObject *code_to_run = Py_NewRef(hit->code);
    PyObject *result = fh_run_replacement(tstate, t, frame, code_to_run);
    Py_DECREF(code_to_run);
    Py_DECREF(hit);
    return result;
}

/* ------------------------------------------------------------------------------------------------ */
/* The eval function                                                                                */
/* ------------------------------------------------------------------------------------------------ */

/* The C stack is nearly full (see stack_guard.c). A call is refused with RecursionError before it
 * runs, as CPython refuses one past its recursion limit; a resumption (or a throw into a generator)
 * runs, as it would without the hook. */
static FH_NOINLINE PyObject *fh_stack_exhausted(PyThreadState *tstate, fh_frame *frame, int throwflag)
{
    if (throwflag || !fh_frame_is_first_entry(frame)) {
        return fh_run_default(tstate, frame, throwflag);
    }
    fh_stats.stack_refused++;
    PyErr_SetString(PyExc_RecursionError,
                    "maximum recursion depth exceeded: the C stack is nearly full (with a PEP 523 hook "
                    "installed every Python call is a C call; recurse less deeply, or lower "
                    "sys.setrecursionlimit())");
    fh_frame_discard(tstate, frame);
    return NULL;
}

PyObject *fh_eval(PyThreadState *tstate, fh_frame *frame, int throwflag)
{
    FhLocal *local = &fh_local;
    if (FH_UNLIKELY(fh_chained != NULL) && FH_UNLIKELY(local->forwarding == frame)) {
        /* Our own frame came back through the chained eval function: run it, don't loop. */
        return _PyEval_EvalFrameDefault(tstate, frame, throwflag);
    }
    if (FH_UNLIKELY(FH_STACK_POSITION() < local->stack_limit)) {
        return fh_stack_exhausted(tstate, frame, throwflag);
    }
    FhThread *t = FH_LIKELY(local->tstate == tstate) ? local->thread : fh_thread_rebind(tstate);
    if (t == NULL || t->callback == NULL || t->disabled || throwflag || !fh_frame_is_first_entry(frame)) {
        return fh_run_default(tstate, frame, throwflag);
    }
    PyCodeObject *code = fh_frame_code(frame);
    if (FH_UNLIKELY(t->run_as_is != NULL) && t->run_as_is == (PyObject *)code) {
        t->run_as_is = NULL; /* a replacement the hook itself is running */
        return fh_run_default(tstate, frame, 0);
    }
    fh_stats.frames++;
    CodeExtra *extra = fh_extra_get(code);
    if (extra != NULL) {
        if (FH_LIKELY(extra->skip == FH_SKIP)) {
            fh_stats.skipped++;
            return fh_run_default(tstate, frame, 0);
        }
        if (extra->skip == FH_SKIP_RECURSIVE) {
            return fh_run_unhooked(tstate, t, frame);
        }
        if (extra->n > 0 && fh_is_function_frame(frame, code)) {
            return fh_lookup(tstate, t, frame, code, extra);
        }
        if (extra->run_only) {
            return fh_run_only_miss(tstate, frame, extra);
        }
    }
    return fh_call_callback(tstate, t, frame, code);
}
