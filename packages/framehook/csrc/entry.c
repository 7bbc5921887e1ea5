/* entry.c: the Entry type (a cache entry: a replacement code object under a guard) and the check
 * that a replacement keeps the original's parameters and free variables.
 */
#include "framehook_internal.h"

static PyObject *Entry_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"code", "guard", "callback", "globals", NULL};
    PyObject *code, *guard, *callback = Py_None, *globals = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|$OO:Entry", kwlist, &code, &guard, &callback, &globals)) {
        return NULL;
    }
    if (globals != Py_None && !PyDict_Check(globals)) {
        PyErr_Format(PyExc_TypeError, "Entry() argument 'globals' must be a dict or None, not %.200s",
                     Py_TYPE(globals)->tp_name);
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
    self->callback = (callback == Py_None) ? NULL : Py_NewRef(callback);
    self->globals = (globals == Py_None) ? NULL : Py_NewRef(globals);
    self->hits = 0;
    return (PyObject *)self;
}

static int Entry_traverse(EntryObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->code);
    Py_VISIT(self->guard);
    Py_VISIT(self->callback);
    Py_VISIT(self->globals);
    return 0;
}

static int Entry_clear(EntryObject *self)
{
    Py_CLEAR(self->code);
    Py_CLEAR(self->guard);
    Py_CLEAR(self->callback);
    Py_CLEAR(self->globals);
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
static PyObject *Entry_get_callback(EntryObject *self, void *closure) { return Py_NewRef(self->callback ? self->callback : Py_None); }
static PyObject *Entry_get_globals(EntryObject *self, void *closure) { return Py_NewRef(self->globals ? self->globals : Py_None); }
static PyObject *Entry_get_hits(EntryObject *self, void *closure) { return PyLong_FromSsize_t(self->hits); }

static PyGetSetDef Entry_getset[] = {
    {"code", (getter)Entry_get_code, NULL, "The replacement code object.", NULL},
    {"guard", (getter)Entry_get_guard, NULL, "The guard: a callable taking a FrameView.", NULL},
    {"callback", (getter)Entry_get_callback, NULL,
     "None, or the callback under which alone this entry serves frames (compared in C, before the guard).", NULL},
    {"globals", (getter)Entry_get_globals, NULL,
     "None, or the globals dict a frame must run in for this entry to serve it (compared in C, before the guard).",
     NULL},
    {"hits", (getter)Entry_get_hits, NULL, "How many frames this entry has served from the cache.", NULL},
    {NULL},
};

PyTypeObject EntryType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "loom_framehook.Entry",
    .tp_basicsize = sizeof(EntryObject),
    .tp_dealloc = (destructor)Entry_dealloc,
    .tp_repr = (reprfunc)Entry_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Entry(code, guard, *, callback=None, globals=None)\n--\n\n"
              "A cache entry: run `code` instead of the frame's code whenever `guard(frame_view)` is "
              "true. With `callback`, the entry serves a frame only while `callback` is the thread's "
              "callback; with `globals`, only a frame whose globals are that dict (both compared by "
              "identity in C, before the guard is called).\n\nReturn one from a callback to store it on the frame's code object and run it now. "
              "Subclass it to attach your own data.",
    .tp_traverse = (traverseproc)Entry_traverse,
    .tp_clear = (inquiry)Entry_clear,
    .tp_getset = Entry_getset,
    .tp_new = Entry_new,
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

int fh_check_replacement(PyCodeObject *original, PyCodeObject *replacement)
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
