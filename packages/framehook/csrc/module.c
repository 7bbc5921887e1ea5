/* module.c: the module loom_framehook._framehook: the SKIP / SKIP_RECURSIVE / RUN_ONLY singletons, the API functions (argument
 * checks, then the work in the other files), the callback() context manager, and PyInit.
 *
 * The design, and a map of the other files, is in framehook_internal.h.
 */
#include "framehook_internal.h"

typedef struct {
    PyObject_HEAD
    PyObject *callback;  /* the callback to set on __enter__ (NULL: None) */
    PyObject *previous;  /* what __enter__ replaced (NULL: None) */
    int entered;
} CallbackContextObject;

/* ------------------------------------------------------------------------------------------------ */
/* SKIP, SKIP_RECURSIVE, RUN_ONLY: the callback results that set a code's strategy                   */
/* ------------------------------------------------------------------------------------------------ */

typedef struct {
    PyObject_HEAD
    const char *name; /* the module attribute it is bound to */
} StrategyObject;

static PyObject *Strategy_repr(StrategyObject *self) { return PyUnicode_FromFormat("loom_framehook.%s", self->name); }

/* Pickled by name: unpickling finds the module's singleton. */
static PyObject *Strategy_reduce(StrategyObject *self, PyObject *noargs) { return PyUnicode_FromString(self->name); }

static PyMethodDef Strategy_methods[] = {
    {"__reduce__", (PyCFunction)Strategy_reduce, METH_NOARGS, NULL},
    {NULL},
};

static PyTypeObject StrategyType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "loom_framehook._Strategy",
    .tp_basicsize = sizeof(StrategyObject),
    .tp_repr = (reprfunc)Strategy_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .tp_doc = "The type of loom_framehook.SKIP, SKIP_RECURSIVE and RUN_ONLY.",
    .tp_methods = Strategy_methods,
};

PyObject *fh_skip = NULL;
PyObject *fh_skip_recursive = NULL;
PyObject *fh_run_only = NULL;

/* Create one singleton (immortal in practice: we never drop it); 0, or -1 with an exception set. */
static int fh_strategy_new(PyObject **slot, const char *name)
{
    if (*slot != NULL) {
        return 0;
    }
    StrategyObject *obj = PyObject_New(StrategyObject, &StrategyType);
    if (obj == NULL) {
        return -1;
    }
    obj->name = name;
    *slot = (PyObject *)obj;
    return 0;
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

static PyObject *fh_py_skip(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"code", "recursive", NULL};
    PyObject *code;
    int recursive = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|$p:skip", kwlist, &code, &recursive)) {
        return NULL;
    }
    if (fh_code_arg("skip", code) < 0) {
        return NULL;
    }
    CodeExtra *extra = fh_extra_get_or_create((PyCodeObject *)code);
    if (extra == NULL) {
        return NULL;
    }
    extra->skip = recursive ? FH_SKIP_RECURSIVE : FH_SKIP;
    Py_RETURN_NONE;
}

static PyObject *fh_py_run_only(PyObject *module, PyObject *code)
{
    if (fh_code_arg("run_only", code) < 0) {
        return NULL;
    }
    CodeExtra *extra = fh_extra_get_or_create((PyCodeObject *)code);
    if (extra == NULL) {
        return NULL;
    }
    extra->run_only = 1;
    extra->run_only_misses = 0;
    Py_RETURN_NONE;
}

static PyObject *fh_py_strategy(PyObject *module, PyObject *code)
{
    if (fh_code_arg("strategy", code) < 0) {
        return NULL;
    }
    CodeExtra *extra = fh_extra_get((PyCodeObject *)code);
    PyObject *result = Py_None;
    if (extra != NULL && extra->skip == FH_SKIP) {
        result = fh_skip;
    }
    else if (extra != NULL && extra->skip == FH_SKIP_RECURSIVE) {
        result = fh_skip_recursive;
    }
    else if (extra != NULL && extra->run_only) {
        result = fh_run_only;
    }
    return Py_NewRef(result);
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
    if (fh_cache_clear(code != Py_None ? (PyCodeObject *)code : NULL) < 0) {
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
    {"skip", (PyCFunction)(void (*)(void))fh_py_skip, METH_VARARGS | METH_KEYWORDS,
     "skip(code, *, recursive=False)\n--\n\nNever call the callback for frames of `code` again (until "
     "clear()). recursive=True: also run everything those frames call with this thread's callback off "
     "(SKIP_RECURSIVE)."},
    {"run_only", fh_py_run_only, METH_O,
     "run_only(code, /)\n--\n\nServe frames of `code` from its stored entries only: on a miss run the frame "
     "normally instead of calling the callback (RUN_ONLY). Until clear()."},
    {"strategy", fh_py_strategy, METH_O,
     "strategy(code, /)\n--\n\nSKIP, SKIP_RECURSIVE or RUN_ONLY if `code` is marked so, else None."},
    {"is_skipped", fh_py_is_skipped, METH_O,
     "is_skipped(code, /)\n--\n\nWhether `code` is marked SKIP or SKIP_RECURSIVE."},
    {"entries", fh_py_entries, METH_O,
     "entries(code, /)\n--\n\nThe entries stored on `code`, most recently used first."},
    {"clear", (PyCFunction)(void (*)(void))fh_py_clear, METH_VARARGS | METH_KEYWORDS,
     "clear(code=None)\n--\n\nDrop the entries and the SKIP / RUN_ONLY marks of `code`, or of every code "
     "object."},
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
    if (PyType_Ready(&EntryType) < 0 || PyType_Ready(&FrameViewType) < 0 || fh_thread_state_init() < 0 ||
        PyType_Ready(&StrategyType) < 0 || PyType_Ready(&CallbackContextType) < 0) {
        return NULL;
    }
    if (fh_cache_init() < 0) {
        return NULL;
    }
    if (fh_strategy_new(&fh_skip, "SKIP") < 0 || fh_strategy_new(&fh_skip_recursive, "SKIP_RECURSIVE") < 0 ||
        fh_strategy_new(&fh_run_only, "RUN_ONLY") < 0) {
        return NULL;
    }
    PyObject *m = PyModule_Create(&fh_module);
    if (m == NULL) {
        return NULL;
    }
    if (PyModule_AddObjectRef(m, "SKIP", fh_skip) < 0 ||
        PyModule_AddObjectRef(m, "SKIP_RECURSIVE", fh_skip_recursive) < 0 ||
        PyModule_AddObjectRef(m, "RUN_ONLY", fh_run_only) < 0 ||
        PyModule_AddObjectRef(m, "Entry", (PyObject *)&EntryType) < 0 ||
        PyModule_AddObjectRef(m, "FrameView", (PyObject *)&FrameViewType) < 0 ||
        PyModule_AddObjectRef(m, "callback", (PyObject *)&CallbackContextType) < 0 ||
        PyModule_AddStringConstant(m, "COMPAT_FAMILY", FH_COMPAT_FAMILY) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    PyObject *api = fh_frame_view_api_capsule(); /* for loom-guards' accelerator: frame_view_api.h */
    if (api == NULL || PyModule_AddObjectRef(m, "_frame_view_api", api) < 0) {
        Py_XDECREF(api);
        Py_DECREF(m);
        return NULL;
    }
    Py_DECREF(api);
    return m;
}
