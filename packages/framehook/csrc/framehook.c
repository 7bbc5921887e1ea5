/* loom_framehook._framehook: a PEP 523 eval-frame hook with a per-code-object cache.
 *
 * The pieces, in the order a frame meets them:
 *
 *   fh_eval                 the eval function CPython calls for every frame it is about to run.
 *                           Hot path: a thread-local pointer test, the first-entry test, one co_extra
 *                           read and the SKIP flag, then a tail call into the default evaluator.
 *   fh_lookup               the code has stored entries: call each guard (most recently used first)
 *                           with a FrameView; the first truthy one runs its replacement.
 *   fh_call_callback        nothing matched: call this thread's callback with a FrameView and act on
 *                           what it returns (None, SKIP, a code object, an Entry).
 *   fh_run_replacement      run a replacement code object for a function frame: build (or reuse) a
 *                           function with the frame's globals, builtins and closure, call it with the
 *                           frame's bound arguments, then discard the original, unstarted frame.
 *
 * Interpreter internals are reached only through frame_compat.h (one small file per version).
 *
 * Per-thread state (FhThread) is a Python object stored in the thread state's dict, so it is
 * released, and the thread's callback dropped, when the thread exits; a C thread-local pointer to it
 * keeps the hot path to one load. Per-code state (CodeExtra) lives in co_extra and is freed with the
 * code object. Everything else is module-global and protected by the GIL.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>

#include "frame_compat.h"

#if defined(__GNUC__)
#define FH_LIKELY(x) __builtin_expect(!!(x), 1)
#define FH_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define FH_NOINLINE __attribute__((noinline))
#else
#define FH_LIKELY(x) (x)
#define FH_UNLIKELY(x) (x)
#define FH_NOINLINE
#endif

#if defined(__GNUC__)
#define FH_THREAD_LOCAL __thread
#else
#define FH_THREAD_LOCAL _Thread_local
#endif

/* ------------------------------------------------------------------------------------------------ */
/* Module-global state                                                                              */
/* ------------------------------------------------------------------------------------------------ */

typedef struct {
    unsigned long long frames;          /* first entries considered (callback set, hook on) */
    unsigned long long skipped;         /* ... run normally because the code is marked SKIP */
    unsigned long long cache_hits;      /* ... served by a stored entry */
    unsigned long long cache_misses;    /* ... whose code had entries but no guard passed */
    unsigned long long callback_calls;  /* callback invocations */
    unsigned long long guard_calls;     /* guard invocations */
    unsigned long long replaced;        /* frames run with a replacement code object */
    unsigned long long refused;         /* replacements returned for module/class frames: ignored */
    unsigned long long errors;          /* exceptions from callbacks/guards, and invalid results */
} FhStats;

static FhStats fh_stats;

static Py_ssize_t fh_extra_index = -1;        /* our co_extra slot */
static Py_ssize_t fh_active_threads = 0;      /* threads with a callback set */
static _PyFrameEvalFunction fh_chained = NULL; /* foreign eval function we chain to (NULL: default) */

static int fh_trace_callbacks = 0;            /* 1: trace/profile functions see callbacks and guards */

static PyObject *fh_thread_key = NULL;        /* key of our object in each thread state dict */
static PyObject *fh_skip = NULL;              /* the SKIP singleton */


static PyObject *fh_eval(PyThreadState *tstate, fh_frame *frame, int throwflag);

/* ------------------------------------------------------------------------------------------------ */
/* Types                                                                                            */
/* ------------------------------------------------------------------------------------------------ */

typedef struct {
    PyObject_HEAD
    PyObject *code;      /* the replacement code object */
    PyObject *guard;     /* callable(frame_view) -> truthy */
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

typedef struct {
    PyObject_HEAD
    PyObject *callback;  /* the callback to set on __enter__ (NULL: None) */
    PyObject *previous;  /* what __enter__ replaced (NULL: None) */
    int entered;
} CallbackContextObject;

static PyTypeObject EntryType;
static PyTypeObject FrameViewType;
static PyTypeObject FhThreadType;
static PyTypeObject SkipType;
static PyTypeObject CallbackContextType;

/* This OS thread's view of loom_framehook, in one thread-local block (one TLS address computation):
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
} FhLocal;

static FH_THREAD_LOCAL FhLocal fh_local = {NULL, NULL, NULL};

/* ------------------------------------------------------------------------------------------------ */
/* Per-code state in co_extra                                                                       */
/* ------------------------------------------------------------------------------------------------ */

typedef struct CodeExtra {
    struct CodeExtra *prev, *next; /* every CodeExtra, for clear() */
    int skip;
    Py_ssize_t n, cap;
    PyObject **entries;            /* strong references, most recently used first */
    unsigned long long version;    /* bumped on every change to entries */
} CodeExtra;

static CodeExtra fh_all_extras = {&fh_all_extras, &fh_all_extras, 0, 0, 0, NULL, 0};

/* Called by CPython when a code object carrying our extra is deallocated. */
static void fh_extra_free(void *ptr)
{
    CodeExtra *extra = (CodeExtra *)ptr;
    if (extra == NULL) {
        return;
    }
    extra->prev->next = extra->next;
    extra->next->prev = extra->prev;
    PyObject **entries = extra->entries;
    Py_ssize_t n = extra->n;
    extra->entries = NULL;
    extra->n = extra->cap = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_DECREF(entries[i]);
    }
    PyMem_Free(entries);
    PyMem_Free(extra);
}

static CodeExtra *fh_extra_get(PyCodeObject *code) { return (CodeExtra *)fh_code_extra(code, fh_extra_index); }

static CodeExtra *fh_extra_get_or_create(PyCodeObject *code)
{
    CodeExtra *extra = fh_extra_get(code);
    if (extra != NULL) {
        return extra;
    }
    extra = PyMem_Calloc(1, sizeof(CodeExtra));
    if (extra == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    if (_PyCode_SetExtra((PyObject *)code, fh_extra_index, extra) < 0) {
        PyMem_Free(extra);
        return NULL;
    }
    extra->next = fh_all_extras.next;
    extra->prev = &fh_all_extras;
    fh_all_extras.next->prev = extra;
    fh_all_extras.next = extra;
    return extra;
}

/* Put a new entry first. Steals nothing; takes a new reference. */
static int fh_extra_push_front(CodeExtra *extra, PyObject *entry)
{
    if (extra->n == extra->cap) {
        Py_ssize_t cap = extra->cap ? extra->cap * 2 : 4;
        PyObject **grown = PyMem_Realloc(extra->entries, (size_t)cap * sizeof(PyObject *));
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        extra->entries = grown;
        extra->cap = cap;
    }
    memmove(extra->entries + 1, extra->entries, (size_t)extra->n * sizeof(PyObject *));
    extra->entries[0] = Py_NewRef(entry);
    extra->n++;
    extra->version++;
    return 0;
}

/* Empty an extra's entries into `sink` (a list that takes the references), reset its skip flag.
 * The references are dropped by the caller once every extra is consistent, because dropping them can
 * run arbitrary code (which may itself free code objects and unlink their extras). */
static int fh_extra_clear_into(CodeExtra *extra, PyObject *sink)
{
    extra->skip = 0;
    extra->version++;
    while (extra->n > 0) {
        PyObject *entry = extra->entries[extra->n - 1];
        if (PyList_Append(sink, entry) < 0) {
            return -1;
        }
        extra->n--;
        Py_DECREF(entry); /* the list holds it now */
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------------ */
/* Per-thread state                                                                                 */
/* ------------------------------------------------------------------------------------------------ */

static void fh_deactivate(void);

static void FhThread_dealloc(FhThread *self)
{
    if (fh_local.thread == self) {
        fh_local.thread = NULL;
        fh_local.tstate = NULL; /* look again: a new thread state may reuse the address */
    }
    PyObject *callback = self->callback;
    self->callback = NULL;
    if (callback != NULL) {
        fh_deactivate();
        Py_DECREF(callback);
    }
    Py_CLEAR(self->spare_view);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyTypeObject FhThreadType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "loom_framehook._ThreadState",
    .tp_basicsize = sizeof(FhThread),
    .tp_dealloc = (destructor)FhThread_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .tp_doc = "loom_framehook's per-thread state (internal).",
};

/* Point fh_local at `tstate`'s object (NULL if it has none). Returns it, borrowed. */
static FH_NOINLINE FhThread *fh_thread_rebind(PyThreadState *tstate)
{
    /* Read the dict without creating one (PyThreadState_GetDict would): this also runs while a thread
     * state is being cleared, when a new dict would never be freed. */
    PyObject *dict = tstate->dict;
    PyObject *found = dict != NULL ? PyDict_GetItemWithError(dict, fh_thread_key) : NULL;
    if (found == NULL) {
        PyErr_Clear(); /* a failed lookup means "none": the hook must not raise here */
    }
    fh_local.thread = (found != NULL && Py_IS_TYPE(found, &FhThreadType)) ? (FhThread *)found : NULL;
    fh_local.tstate = tstate;
    return fh_local.thread;
}

/* This thread's state, created on demand. Returns a borrowed reference, or NULL (error set only if
 * create was requested and failed). */
static FhThread *fh_thread_get(int create)
{
    PyThreadState *tstate = PyThreadState_Get();
    FhThread *t = (fh_local.tstate == tstate) ? fh_local.thread : fh_thread_rebind(tstate);
    if (t != NULL || !create) {
        return t;
    }
    if (PyThreadState_GetInterpreter(tstate) != PyInterpreterState_Main()) {
        PyErr_SetString(PyExc_RuntimeError, "loom_framehook works in the main interpreter only");
        return NULL;
    }
    PyObject *dict = PyThreadState_GetDict();
    if (dict == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "loom_framehook: this thread has no thread state dict");
        return NULL;
    }
    t = PyObject_New(FhThread, &FhThreadType);
    if (t == NULL) {
        return NULL;
    }
    t->callback = NULL;
    t->disabled = 0;
    t->run_as_is = NULL;
    t->spare_view = NULL;
    if (PyDict_SetItem(dict, fh_thread_key, (PyObject *)t) < 0) {
        Py_DECREF(t);
        return NULL;
    }
    Py_DECREF(t); /* the thread state dict owns it; it dies with the thread */
    fh_local.thread = t;
    fh_local.tstate = tstate;
    return t;
}

/* ------------------------------------------------------------------------------------------------ */
/* Installing and removing the eval function                                                        */
/* ------------------------------------------------------------------------------------------------ */

static _PyFrameEvalFunction fh_current_eval(void)
{
    /* The main interpreter's: no thread state needed (this also runs while a thread state is cleared). */
    return _PyInterpreterState_GetEvalFrameFunc(PyInterpreterState_Main());
}

static void fh_set_eval(_PyFrameEvalFunction f)
{
    _PyInterpreterState_SetEvalFrameFunc(PyInterpreterState_Main(), f);
}

/* A thread gained a callback. The first one installs the eval function; if another PEP 523 user
 * already installed theirs, ours chains to it (frames we let run go to it, not to the default
 * evaluator) instead of overwriting it. */
static void fh_activate(void)
{
    if (fh_active_threads++ > 0) {
        return;
    }
    _PyFrameEvalFunction current = fh_current_eval();
    if (current == fh_eval) {
        return; /* still (or again) installed: keep the chain we had */
    }
    fh_chained = (current == _PyEval_EvalFrameDefault) ? NULL : current;
    fh_set_eval(fh_eval);
}

/* A thread lost its callback. The last one removes the eval function, putting back what it
 * replaced. If someone installed theirs over ours meanwhile, theirs stays: ours may be in their
 * chain, where it now just passes frames on. */
static void fh_deactivate(void)
{
    if (--fh_active_threads > 0) {
        return;
    }
    if (fh_current_eval() == fh_eval) {
        fh_set_eval(fh_chained != NULL ? fh_chained : _PyEval_EvalFrameDefault);
        /* Forget it: if someone later puts ours back (restoring what they replaced), it must not
         * forward to a function that may have been removed since. */
        fh_chained = NULL;
    }
}

/* ------------------------------------------------------------------------------------------------ */
/* Running a frame normally                                                                         */
/* ------------------------------------------------------------------------------------------------ */

static FH_NOINLINE PyObject *fh_run_chained(PyThreadState *tstate, fh_frame *frame, int throwflag)
{
    _PyFrameEvalFunction chained = fh_chained;
    if (chained == NULL || fh_local.forwarding == frame) {
        return _PyEval_EvalFrameDefault(tstate, frame, throwflag);
    }
    fh_frame *outer = fh_local.forwarding;
    fh_local.forwarding = frame;
    PyObject *result = chained(tstate, frame, throwflag);
    fh_local.forwarding = outer;
    return result;
}

static inline PyObject *fh_run_default(PyThreadState *tstate, fh_frame *frame, int throwflag)
{
    if (FH_UNLIKELY(fh_chained != NULL)) {
        return fh_run_chained(tstate, frame, throwflag);
    }
    return _PyEval_EvalFrameDefault(tstate, frame, throwflag);
}

/* ------------------------------------------------------------------------------------------------ */
/* FrameView                                                                                        */
/* ------------------------------------------------------------------------------------------------ */

static int fh_view_check(FrameViewObject *self)
{
    if (self->frame == NULL) {
        PyErr_SetString(PyExc_RuntimeError,
                        "this loom_framehook.FrameView is no longer valid: a frame view may only be "
                        "used during the callback or guard call that received it");
        return -1;
    }
    return 0;
}

static Py_ssize_t fh_code_nargs(PyCodeObject *co)
{
    return co->co_argcount + co->co_kwonlyargcount + ((co->co_flags & CO_VARARGS) ? 1 : 0) +
           ((co->co_flags & CO_VARKEYWORDS) ? 1 : 0);
}

static PyObject *FrameView_get_f_code(FrameViewObject *self, void *closure)
{
    if (fh_view_check(self) < 0) {
        return NULL;
    }
    return Py_NewRef((PyObject *)fh_frame_code(self->frame));
}

static PyObject *FrameView_get_f_globals(FrameViewObject *self, void *closure)
{
    if (fh_view_check(self) < 0) {
        return NULL;
    }
    return Py_NewRef(fh_frame_globals(self->frame));
}

static PyObject *FrameView_get_f_builtins(FrameViewObject *self, void *closure)
{
    if (fh_view_check(self) < 0) {
        return NULL;
    }
    return Py_NewRef(fh_frame_builtins(self->frame));
}

static PyObject *FrameView_get_f_locals(FrameViewObject *self, void *closure)
{
    if (fh_view_check(self) < 0) {
        return NULL;
    }
    if (self->locals == NULL) {
        PyCodeObject *co = fh_frame_code(self->frame);
        PyObject **values = fh_frame_localsplus(self->frame);
        PyObject *names = co->co_localsplusnames;
        Py_ssize_t n = fh_code_nargs(co);
        PyObject *dict = PyDict_New();
        if (dict == NULL) {
            return NULL;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            /* At first entry every argument slot is bound (cell arguments still hold raw values). */
            if (values[i] != NULL && PyDict_SetItem(dict, PyTuple_GET_ITEM(names, i), values[i]) < 0) {
                Py_DECREF(dict);
                return NULL;
            }
        }
        self->locals = dict;
    }
    return Py_NewRef(self->locals);
}

static PyObject *FrameView_get_closure(FrameViewObject *self, void *closure)
{
    if (fh_view_check(self) < 0) {
        return NULL;
    }
    PyObject *func = fh_frame_function(self->frame);
    if (func != NULL && PyFunction_Check(func) && ((PyFunctionObject *)func)->func_closure != NULL) {
        return Py_NewRef(((PyFunctionObject *)func)->func_closure);
    }
    Py_RETURN_NONE;
}

static PyObject *FrameView_get_valid(FrameViewObject *self, void *closure)
{
    return PyBool_FromLong(self->frame != NULL);
}

static PyGetSetDef FrameView_getset[] = {
    {"f_code", (getter)FrameView_get_f_code, NULL, "The code object of the frame about to run.", NULL},
    {"f_globals", (getter)FrameView_get_f_globals, NULL, "The frame's globals dict.", NULL},
    {"f_builtins", (getter)FrameView_get_f_builtins, NULL, "The frame's builtins dict.", NULL},
    {"f_locals", (getter)FrameView_get_f_locals, NULL,
     "A dict of the frame's arguments at entry (built on first access, then cached on the view).", NULL},
    {"closure", (getter)FrameView_get_closure, NULL,
     "The function's closure (a tuple of cells), or None.", NULL},
    {"valid", (getter)FrameView_get_valid, NULL,
     "True while the call that received this view is running.", NULL},
    {NULL},
};

static PyObject *FrameView_repr(FrameViewObject *self)
{
    if (self->frame == NULL) {
        return PyUnicode_FromString("<loom_framehook.FrameView (expired)>");
    }
    PyCodeObject *co = fh_frame_code(self->frame);
    return PyUnicode_FromFormat("<loom_framehook.FrameView of %U at %U:%d>", co->co_qualname, co->co_filename,
                                co->co_firstlineno);
}

static void FrameView_dealloc(FrameViewObject *self)
{
    Py_CLEAR(self->locals);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyTypeObject FrameViewType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "loom_framehook.FrameView",
    .tp_basicsize = sizeof(FrameViewObject),
    .tp_dealloc = (destructor)FrameView_dealloc,
    .tp_repr = (reprfunc)FrameView_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .tp_doc = "A read-only view of a frame about to start, handed to callbacks and guards.\n\n"
              "Valid only during the call that received it; afterwards every attribute raises "
              "RuntimeError.",
    .tp_getset = FrameView_getset,
};

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
/* Entry                                                                                            */
/* ------------------------------------------------------------------------------------------------ */

static PyObject *Entry_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"code", "guard", NULL};
    PyObject *code, *guard;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO:Entry", kwlist, &code, &guard)) {
        return NULL;
    }
    if (!PyCode_Check(code)) {
        PyErr_Format(PyExc_TypeError, "Entry() argument 'code' must be a code object, not %.200s",
                     Py_TYPE(code)->tp_name);
        return NULL;
    }
    if (!PyCallable_Check(guard)) {
        PyErr_Format(PyExc_TypeError, "Entry() argument 'guard' must be callable, not %.200s",
                     Py_TYPE(guard)->tp_name);
        return NULL;
    }
    EntryObject *self = (EntryObject *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->code = Py_NewRef(code);
    self->guard = Py_NewRef(guard);
    self->hits = 0;
    return (PyObject *)self;
}

static int Entry_traverse(EntryObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->code);
    Py_VISIT(self->guard);
    return 0;
}

static int Entry_clear(EntryObject *self)
{
    Py_CLEAR(self->code);
    Py_CLEAR(self->guard);
    return 0;
}

static void Entry_dealloc(EntryObject *self)
{
    PyTypeObject *type = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    Entry_clear(self);
    /* A Python subclass's dealloc (subtype_dealloc) drops the reference to its heap type. */
    type->tp_free((PyObject *)self);
}

static PyObject *Entry_repr(EntryObject *self)
{
    if (self->code == NULL) {
        return PyUnicode_FromString("<loom_framehook.Entry (cleared)>");
    }
    PyCodeObject *co = (PyCodeObject *)self->code;
    return PyUnicode_FromFormat("<loom_framehook.Entry code=%U guard=%R hits=%zd>", co->co_qualname,
                                self->guard, self->hits);
}

static PyObject *Entry_get_code(EntryObject *self, void *closure) { return Py_NewRef(self->code ? self->code : Py_None); }
static PyObject *Entry_get_guard(EntryObject *self, void *closure) { return Py_NewRef(self->guard ? self->guard : Py_None); }
static PyObject *Entry_get_hits(EntryObject *self, void *closure) { return PyLong_FromSsize_t(self->hits); }

static PyGetSetDef Entry_getset[] = {
    {"code", (getter)Entry_get_code, NULL, "The replacement code object.", NULL},
    {"guard", (getter)Entry_get_guard, NULL, "The guard: a callable taking a FrameView.", NULL},
    {"hits", (getter)Entry_get_hits, NULL, "How many frames this entry has served from the cache.", NULL},
    {NULL},
};

static PyTypeObject EntryType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "loom_framehook.Entry",
    .tp_basicsize = sizeof(EntryObject),
    .tp_dealloc = (destructor)Entry_dealloc,
    .tp_repr = (reprfunc)Entry_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Entry(code, guard)\n--\n\n"
              "A cache entry: run `code` instead of the frame's code whenever `guard(frame_view)` is "
              "true.\n\nReturn one from a callback to store it on the frame's code object and run it now. "
              "Subclass it to attach your own data.",
    .tp_traverse = (traverseproc)Entry_traverse,
    .tp_clear = (inquiry)Entry_clear,
    .tp_getset = Entry_getset,
    .tp_new = Entry_new,
};

/* ------------------------------------------------------------------------------------------------ */
/* SKIP                                                                                             */
/* ------------------------------------------------------------------------------------------------ */

static PyObject *Skip_repr(PyObject *self) { return PyUnicode_FromString("loom_framehook.SKIP"); }
static PyObject *Skip_reduce(PyObject *self, PyObject *noargs) { return PyUnicode_FromString("SKIP"); }

static PyMethodDef Skip_methods[] = {
    {"__reduce__", (PyCFunction)Skip_reduce, METH_NOARGS, NULL},
    {NULL},
};

static PyTypeObject SkipType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "loom_framehook._SkipType",
    .tp_basicsize = sizeof(PyObject),
    .tp_repr = Skip_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .tp_doc = "The type of loom_framehook.SKIP.",
    .tp_methods = Skip_methods,
};

/* ------------------------------------------------------------------------------------------------ */
/* Checking a replacement against the original                                                      */
/* ------------------------------------------------------------------------------------------------ */

static int fh_append_difference(PyObject *list, const char *format, ...)
{
    va_list vargs;
    va_start(vargs, format);
    PyObject *text = PyUnicode_FromFormatV(format, vargs);
    va_end(vargs);
    if (text == NULL) {
        return -1;
    }
    int rc = PyList_Append(list, text);
    Py_DECREF(text);
    return rc;
}

/* 0 if `replacement` can run in place of `original` (same parameters and free variables), else -1
 * with ValueError naming every difference. */
static int fh_check_replacement(PyCodeObject *original, PyCodeObject *replacement)
{
    if (original == replacement) {
        return 0;
    }
    PyObject *diffs = PyList_New(0);
    if (diffs == NULL) {
        return -1;
    }
#define FH_COMPARE_INT(field)                                                                        \
    if (original->field != replacement->field &&                                                     \
        fh_append_difference(diffs, #field " %d != %d", original->field, replacement->field) < 0) {  \
        goto error;                                                                                  \
    }
    FH_COMPARE_INT(co_argcount)
    FH_COMPARE_INT(co_posonlyargcount)
    FH_COMPARE_INT(co_kwonlyargcount)
#undef FH_COMPARE_INT
    static const struct {
        int flag;
        const char *name;
    } flags[] = {{CO_VARARGS, "CO_VARARGS (*args)"}, {CO_VARKEYWORDS, "CO_VARKEYWORDS (**kwargs)"}};
    for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
        int a = (original->co_flags & flags[i].flag) != 0, b = (replacement->co_flags & flags[i].flag) != 0;
        if (a != b && fh_append_difference(diffs, "%s %s in the original, %s in the replacement", flags[i].name,
                                           a ? "set" : "not set", b ? "set" : "not set") < 0) {
            goto error;
        }
    }
    if (PyList_GET_SIZE(diffs) == 0) {
        /* Same counts: compare the parameter names slot by slot. */
        Py_ssize_t n = fh_code_nargs(original);
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *a = PyTuple_GET_ITEM(original->co_localsplusnames, i);
            PyObject *b = PyTuple_GET_ITEM(replacement->co_localsplusnames, i);
            int eq = PyUnicode_Compare(a, b);
            if (eq == -1 && PyErr_Occurred()) {
                goto error;
            }
            if (eq != 0 && fh_append_difference(diffs, "parameter %zd is %R in the original, %R in the replacement",
                                                i, a, b) < 0) {
                goto error;
            }
        }
    }
    PyObject *free_a = PyCode_GetFreevars(original);
    if (free_a == NULL) {
        goto error;
    }
    PyObject *free_b = PyCode_GetFreevars(replacement);
    if (free_b == NULL) {
        Py_DECREF(free_a);
        goto error;
    }
    int same = PyObject_RichCompareBool(free_a, free_b, Py_EQ);
    if (same == 0) {
        same = fh_append_difference(diffs, "co_freevars %R != %R", free_a, free_b) < 0 ? -1 : 0;
    }
    Py_DECREF(free_a);
    Py_DECREF(free_b);
    if (same < 0) {
        goto error;
    }
    if (PyList_GET_SIZE(diffs) == 0) {
        Py_DECREF(diffs);
        return 0;
    }
    PyObject *sep = PyUnicode_FromString("; ");
    if (sep == NULL) {
        goto error;
    }
    PyObject *joined = PyUnicode_Join(sep, diffs);
    Py_DECREF(sep);
    if (joined == NULL) {
        goto error;
    }
    PyErr_Format(PyExc_ValueError,
                 "replacement code %R does not keep the parameters and free variables of %R: %U",
                 (PyObject *)replacement, (PyObject *)original, joined);
    Py_DECREF(joined);
error:
    Py_DECREF(diffs);
    return -1;
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
    if (result == fh_skip) {
        Py_DECREF(result);
        CodeExtra *extra = fh_extra_get_or_create(code);
        if (extra == NULL) {
            return fh_fail(tstate, frame);
        }
        extra->skip = 1;
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
        return fh_call_callback(tstate, t, frame, code);
    }
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

static PyObject *fh_eval(PyThreadState *tstate, fh_frame *frame, int throwflag)
{
    FhLocal *local = &fh_local;
    if (FH_UNLIKELY(fh_chained != NULL) && FH_UNLIKELY(local->forwarding == frame)) {
        /* Our own frame came back through the chained eval function: run it, don't loop. */
        return _PyEval_EvalFrameDefault(tstate, frame, throwflag);
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
        if (FH_LIKELY(extra->skip)) {
            fh_stats.skipped++;
            return fh_run_default(tstate, frame, 0);
        }
        if (extra->n > 0 && fh_is_function_frame(frame, code)) {
            return fh_lookup(tstate, t, frame, code, extra);
        }
    }
    return fh_call_callback(tstate, t, frame, code);
}

/* ------------------------------------------------------------------------------------------------ */
/* A do-nothing eval function and a foreign chaining one, for benchmarks and tests only              */
/* ------------------------------------------------------------------------------------------------ */

static _PyFrameEvalFunction fh_test_previous = NULL;
static unsigned long long fh_test_frames = 0;

static PyObject *fh_noop_eval(PyThreadState *tstate, fh_frame *frame, int throwflag)
{
    return _PyEval_EvalFrameDefault(tstate, frame, throwflag);
}

/* Behaves like another PEP 523 user (e.g. torch.compile): counts frames, chains to what it found. */
static PyObject *fh_foreign_eval(PyThreadState *tstate, fh_frame *frame, int throwflag)
{
    fh_test_frames++;
    if (fh_test_previous != NULL) {
        return fh_test_previous(tstate, frame, throwflag);
    }
    return _PyEval_EvalFrameDefault(tstate, frame, throwflag);
}

static PyObject *fh_py_install_test_hook(PyObject *module, PyObject *arg)
{
    const char *kind = PyUnicode_AsUTF8(arg);
    if (kind == NULL) {
        return NULL;
    }
    _PyFrameEvalFunction current = fh_current_eval();
    if (strcmp(kind, "off") == 0) {
        if (current == fh_noop_eval || current == fh_foreign_eval) {
            fh_set_eval(fh_test_previous != NULL ? fh_test_previous : _PyEval_EvalFrameDefault);
        }
        fh_test_previous = NULL;
        Py_RETURN_NONE;
    }
    _PyFrameEvalFunction hook;
    if (strcmp(kind, "noop") == 0) {
        hook = fh_noop_eval;
        if (current != _PyEval_EvalFrameDefault) {
            PyErr_SetString(PyExc_RuntimeError, "the do-nothing hook needs the default evaluator installed");
            return NULL;
        }
    }
    else if (strcmp(kind, "foreign") == 0) {
        hook = fh_foreign_eval;
    }
    else {
        PyErr_Format(PyExc_ValueError, "unknown test hook kind %R (expected 'noop', 'foreign' or 'off')", arg);
        return NULL;
    }
    if (current == fh_noop_eval || current == fh_foreign_eval) {
        PyErr_SetString(PyExc_RuntimeError, "a test hook is already installed");
        return NULL;
    }
    fh_test_previous = (current == _PyEval_EvalFrameDefault) ? NULL : current;
    fh_test_frames = 0;
    fh_set_eval(hook);
    Py_RETURN_NONE;
}

static PyObject *fh_py_test_hook_frames(PyObject *module, PyObject *noargs)
{
    return PyLong_FromUnsignedLongLong(fh_test_frames);
}

static PyObject *fh_py_current_eval_name(PyObject *module, PyObject *noargs)
{
    _PyFrameEvalFunction current = fh_current_eval();
    const char *name = current == _PyEval_EvalFrameDefault ? "default"
                       : current == fh_eval                ? "loom_framehook"
                       : current == fh_noop_eval           ? "test-noop"
                       : current == fh_foreign_eval        ? "test-foreign"
                                                           : "other";
    return PyUnicode_FromString(name);
}

/* ------------------------------------------------------------------------------------------------ */
/* Public functions                                                                                 */
/* ------------------------------------------------------------------------------------------------ */

static int fh_check_callback_arg(const char *func, PyObject *cb)
{
    if (cb != Py_None && !PyCallable_Check(cb)) {
        PyErr_Format(PyExc_TypeError, "%s() expects a callable or None, not %.200s", func, Py_TYPE(cb)->tp_name);
        return -1;
    }
    return 0;
}

/* Set this thread's callback; returns the previous one (a new reference; None if there was none). */
static PyObject *fh_set_callback(PyObject *cb)
{
    PyObject *new_cb = (cb == Py_None) ? NULL : cb;
    FhThread *t = fh_thread_get(new_cb != NULL);
    if (t == NULL) {
        if (PyErr_Occurred()) {
            return NULL;
        }
        Py_RETURN_NONE; /* turning off a thread that never had a callback */
    }
    PyObject *previous = t->callback;
    if (new_cb != NULL && previous == NULL) {
        fh_activate();
    }
    t->callback = Py_XNewRef(new_cb);
    if (new_cb == NULL && previous != NULL) {
        fh_deactivate();
    }
    return previous != NULL ? previous : Py_NewRef(Py_None); /* the reference t held moves to the caller */
}

static PyObject *fh_py_set_callback(PyObject *module, PyObject *cb)
{
    if (fh_check_callback_arg("set_callback", cb) < 0) {
        return NULL;
    }
    return fh_set_callback(cb);
}

static PyObject *fh_py_get_callback(PyObject *module, PyObject *noargs)
{
    FhThread *t = fh_thread_get(0);
    return Py_NewRef((t != NULL && t->callback != NULL) ? t->callback : Py_None);
}

static int fh_code_arg(const char *func, PyObject *arg)
{
    if (!PyCode_Check(arg)) {
        PyErr_Format(PyExc_TypeError, "%s() expects a code object, not %.200s%s", func, Py_TYPE(arg)->tp_name,
                     PyFunction_Check(arg) ? " (pass fn.__code__)" : "");
        return -1;
    }
    return 0;
}

static PyObject *fh_py_skip(PyObject *module, PyObject *code)
{
    if (fh_code_arg("skip", code) < 0) {
        return NULL;
    }
    CodeExtra *extra = fh_extra_get_or_create((PyCodeObject *)code);
    if (extra == NULL) {
        return NULL;
    }
    extra->skip = 1;
    Py_RETURN_NONE;
}

static PyObject *fh_py_is_skipped(PyObject *module, PyObject *code)
{
    if (fh_code_arg("is_skipped", code) < 0) {
        return NULL;
    }
    CodeExtra *extra = fh_extra_get((PyCodeObject *)code);
    return PyBool_FromLong(extra != NULL && extra->skip);
}

static PyObject *fh_py_entries(PyObject *module, PyObject *code)
{
    if (fh_code_arg("entries", code) < 0) {
        return NULL;
    }
    CodeExtra *extra = fh_extra_get((PyCodeObject *)code);
    Py_ssize_t n = extra != NULL ? extra->n : 0;
    PyObject *list = PyList_New(n);
    if (list == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyList_SET_ITEM(list, i, Py_NewRef(extra->entries[i]));
    }
    return list;
}

static PyObject *fh_py_clear(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"code", NULL};
    PyObject *code = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:clear", kwlist, &code)) {
        return NULL;
    }
    if (code != Py_None && fh_code_arg("clear", code) < 0) {
        return NULL;
    }
    PyObject *sink = PyList_New(0);
    if (sink == NULL) {
        return NULL;
    }
    int rc = 0;
    if (code != Py_None) {
        CodeExtra *extra = fh_extra_get((PyCodeObject *)code);
        if (extra != NULL) {
            rc = fh_extra_clear_into(extra, sink);
        }
    }
    else {
        for (CodeExtra *e = fh_all_extras.next; e != &fh_all_extras && rc == 0; e = e->next) {
            rc = fh_extra_clear_into(e, sink);
        }
    }
    Py_DECREF(sink); /* drops the entries; may run arbitrary code, now that every extra is consistent */
    if (rc < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *fh_py_check_replacement(PyObject *module, PyObject *args)
{
    PyObject *original, *replacement;
    if (!PyArg_ParseTuple(args, "OO:check_replacement", &original, &replacement)) {
        return NULL;
    }
    if (fh_code_arg("check_replacement", original) < 0 || fh_code_arg("check_replacement", replacement) < 0) {
        return NULL;
    }
    if (fh_check_replacement((PyCodeObject *)original, (PyCodeObject *)replacement) < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *fh_py_stats(PyObject *module, PyObject *noargs)
{
    Py_ssize_t codes = 0, entries = 0, skipped_codes = 0;
    for (CodeExtra *e = fh_all_extras.next; e != &fh_all_extras; e = e->next) {
        codes++;
        entries += e->n;
        skipped_codes += e->skip ? 1 : 0;
    }
    return Py_BuildValue(
        "{sKsKsKsKsKsKsKsKsKsnsnsnsnsO}",
        "frames", fh_stats.frames, "skipped", fh_stats.skipped, "cache_hits", fh_stats.cache_hits, "cache_misses",
        fh_stats.cache_misses, "callback_calls", fh_stats.callback_calls, "guard_calls", fh_stats.guard_calls,
        "replaced", fh_stats.replaced, "refused", fh_stats.refused, "errors", fh_stats.errors, "codes", codes,
        "entries", entries, "skipped_codes", skipped_codes, "threads", fh_active_threads, "installed",
        fh_current_eval() == fh_eval ? Py_True : Py_False);
}

static PyObject *fh_py_reset_stats(PyObject *module, PyObject *noargs)
{
    memset(&fh_stats, 0, sizeof(fh_stats));
    Py_RETURN_NONE;
}

static PyObject *fh_py_set_trace_callbacks(PyObject *module, PyObject *arg)
{
    int enabled = PyObject_IsTrue(arg);
    if (enabled < 0) {
        return NULL;
    }
    int previous = fh_trace_callbacks;
    fh_trace_callbacks = enabled;
    return PyBool_FromLong(previous);
}

static PyObject *fh_py_is_installed(PyObject *module, PyObject *noargs)
{
    return PyBool_FromLong(fh_current_eval() == fh_eval);
}

/* ------------------------------------------------------------------------------------------------ */
/* callback(cb): a context manager in C, so no Python frame of ours reaches the callback            */
/* ------------------------------------------------------------------------------------------------ */

static PyObject *CallbackContext_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"cb", NULL};
    PyObject *cb;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O:callback", kwlist, &cb)) {
        return NULL;
    }
    if (fh_check_callback_arg("callback", cb) < 0) {
        return NULL;
    }
    CallbackContextObject *self = (CallbackContextObject *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->callback = (cb == Py_None) ? NULL : Py_NewRef(cb);
    self->previous = NULL;
    self->entered = 0;
    return (PyObject *)self;
}

static PyObject *CallbackContext_enter(CallbackContextObject *self, PyObject *noargs)
{
    if (self->entered) {
        PyErr_SetString(PyExc_RuntimeError, "this loom_framehook.callback() context is already entered");
        return NULL;
    }
    PyObject *previous = fh_set_callback(self->callback ? self->callback : Py_None);
    if (previous == NULL) {
        return NULL;
    }
    Py_XSETREF(self->previous, previous);
    self->entered = 1;
    return Py_NewRef(self->callback ? self->callback : Py_None);
}

static PyObject *CallbackContext_exit(CallbackContextObject *self, PyObject *args)
{
    if (!self->entered) {
        PyErr_SetString(PyExc_RuntimeError, "this loom_framehook.callback() context was not entered");
        return NULL;
    }
    self->entered = 0;
    PyObject *previous = self->previous;
    self->previous = NULL;
    PyObject *replaced = fh_set_callback(previous);
    Py_DECREF(previous);
    if (replaced == NULL) {
        return NULL;
    }
    Py_DECREF(replaced);
    Py_RETURN_FALSE;
}

static int CallbackContext_traverse(CallbackContextObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->callback);
    Py_VISIT(self->previous);
    return 0;
}

static int CallbackContext_clear(CallbackContextObject *self)
{
    Py_CLEAR(self->callback);
    Py_CLEAR(self->previous);
    return 0;
}

static void CallbackContext_dealloc(CallbackContextObject *self)
{
    PyObject_GC_UnTrack(self);
    CallbackContext_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef CallbackContext_methods[] = {
    {"__enter__", (PyCFunction)CallbackContext_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)CallbackContext_exit, METH_VARARGS, NULL},
    {NULL},
};

static PyTypeObject CallbackContextType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "loom_framehook.callback",
    .tp_basicsize = sizeof(CallbackContextObject),
    .tp_dealloc = (destructor)CallbackContext_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "callback(cb)\n--\n\n"
              "Context manager: set this thread's callback to `cb` (a callable or None) on entry and "
              "restore the previous one on exit, exceptions included.",
    .tp_traverse = (traverseproc)CallbackContext_traverse,
    .tp_clear = (inquiry)CallbackContext_clear,
    .tp_methods = CallbackContext_methods,
    .tp_new = CallbackContext_new,
};

/* ------------------------------------------------------------------------------------------------ */
/* Module                                                                                           */
/* ------------------------------------------------------------------------------------------------ */

static PyMethodDef fh_methods[] = {
    {"set_callback", fh_py_set_callback, METH_O,
     "set_callback(cb, /)\n--\n\nSet this thread's callback (None turns the hook off for this thread); "
     "return the previous one."},
    {"get_callback", fh_py_get_callback, METH_NOARGS,
     "get_callback()\n--\n\nThis thread's callback, or None."},
    {"skip", fh_py_skip, METH_O,
     "skip(code, /)\n--\n\nNever call the callback for frames of `code` again (until clear())."},
    {"is_skipped", fh_py_is_skipped, METH_O, "is_skipped(code, /)\n--\n\nWhether `code` is marked SKIP."},
    {"entries", fh_py_entries, METH_O,
     "entries(code, /)\n--\n\nThe entries stored on `code`, most recently used first."},
    {"clear", (PyCFunction)(void (*)(void))fh_py_clear, METH_VARARGS | METH_KEYWORDS,
     "clear(code=None)\n--\n\nDrop the entries and the SKIP mark of `code`, or of every code object."},
    {"check_replacement", fh_py_check_replacement, METH_VARARGS,
     "check_replacement(original, replacement, /)\n--\n\nRaise ValueError naming the differences if "
     "`replacement` does not keep `original`'s parameters and free variables."},
    {"stats", fh_py_stats, METH_NOARGS, "stats()\n--\n\nCounters and sizes, as a dict."},
    {"reset_stats", fh_py_reset_stats, METH_NOARGS, "reset_stats()\n--\n\nZero the counters."},
    {"set_trace_callbacks", fh_py_set_trace_callbacks, METH_O,
     "set_trace_callbacks(enabled, /)\n--\n\nWhether trace and profile functions (sys.settrace, sys.setprofile, "
     "sys.monitoring, debuggers, coverage) see the frames of callbacks and guards; off by default, so "
     "tracing a program shows the program only. Returns the previous setting. Process-wide."},
    {"is_installed", fh_py_is_installed, METH_NOARGS,
     "is_installed()\n--\n\nWhether loom_framehook's eval function is the interpreter's eval function."},
    {"_install_test_hook", fh_py_install_test_hook, METH_O,
     "_install_test_hook(kind, /)\n--\n\nFor benchmarks and tests only: install 'noop' (a do-nothing "
     "eval function) or 'foreign' (one that counts frames and chains to what it found), or 'off'."},
    {"_test_hook_frames", fh_py_test_hook_frames, METH_NOARGS,
     "_test_hook_frames()\n--\n\nFrames the 'foreign' test hook saw."},
    {"_current_eval_name", fh_py_current_eval_name, METH_NOARGS,
     "_current_eval_name()\n--\n\nWhich eval function is installed: 'default', 'loom_framehook', "
     "'test-noop', 'test-foreign' or 'other'."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef fh_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "loom_framehook._framehook",
    .m_doc = "The C half of loom_framehook: a PEP 523 eval-frame hook with a per-code cache.",
    .m_size = -1,
    .m_methods = fh_methods,
};

PyMODINIT_FUNC PyInit__framehook(void)
{
    if (PyType_Ready(&EntryType) < 0 || PyType_Ready(&FrameViewType) < 0 || PyType_Ready(&FhThreadType) < 0 ||
        PyType_Ready(&SkipType) < 0 || PyType_Ready(&CallbackContextType) < 0) {
        return NULL;
    }
    if (fh_extra_index < 0) {
        fh_extra_index = _PyEval_RequestCodeExtraIndex(fh_extra_free);
        if (fh_extra_index < 0) {
            PyErr_SetString(PyExc_RuntimeError, "loom_framehook: no co_extra index left");
            return NULL;
        }
    }
    if (fh_thread_key == NULL) {
        fh_thread_key = PyUnicode_InternFromString("loom_framehook._framehook.thread_state");
        if (fh_thread_key == NULL) {
            return NULL;
        }
    }
    if (fh_skip == NULL) {
        fh_skip = PyObject_New(PyObject, &SkipType); /* immortal in practice: we never drop it */
        if (fh_skip == NULL) {
            return NULL;
        }
    }
    PyObject *m = PyModule_Create(&fh_module);
    if (m == NULL) {
        return NULL;
    }
    if (PyModule_AddObjectRef(m, "SKIP", fh_skip) < 0 ||
        PyModule_AddObjectRef(m, "Entry", (PyObject *)&EntryType) < 0 ||
        PyModule_AddObjectRef(m, "FrameView", (PyObject *)&FrameViewType) < 0 ||
        PyModule_AddObjectRef(m, "callback", (PyObject *)&CallbackContextType) < 0 ||
        PyModule_AddStringConstant(m, "COMPAT_FAMILY", FH_COMPAT_FAMILY) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
