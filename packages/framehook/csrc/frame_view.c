/* frame_view.c: the FrameView type, the read-only view of a frame about to start that callbacks and
 * guards receive.
 *
 * A view holds a borrowed pointer to the frame and never creates a frame object (unsafe for unstarted
 * generator frames). It is expired as soon as the call that received it returns; one per thread is
 * recycled (fh_view_acquire / fh_view_release, in eval_frame.c: they are on the cache-hit path).
 */
#include "framehook_internal.h"
#include "frame_view_api.h"

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

/* ------------------------------------------------------------------------------------------------ */
/* The C interface (frame_view_api.h): what a compiled guard reads, without attribute lookups and      */
/* without building the f_locals dict                                                               */
/* ------------------------------------------------------------------------------------------------ */

static int fh_api_argument(PyObject *view, PyObject *name, PyObject **out)
{
    FrameViewObject *self = (FrameViewObject *)view;
    if (fh_view_check(self) < 0) {
        return -1;
    }
    PyCodeObject *co = fh_frame_code(self->frame);
    PyObject **values = fh_frame_localsplus(self->frame);
    PyObject *names = co->co_localsplusnames;
    Py_ssize_t n = fh_code_nargs(co);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (PyTuple_GET_ITEM(names, i) == name) { /* names are interned: this is the usual hit */
            *out = values[i];
            return values[i] != NULL;
        }
    }
    if (!PyUnicode_Check(name)) {
        return 0; /* f_locals has str keys only */
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        int eq = PyUnicode_Compare(PyTuple_GET_ITEM(names, i), name);
        if (eq == -1 && PyErr_Occurred()) {
            return -1;
        }
        if (eq == 0) {
            *out = values[i];
            return values[i] != NULL;
        }
    }
    return 0;
}

static PyObject *fh_api_globals(PyObject *view)
{
    FrameViewObject *self = (FrameViewObject *)view;
    return fh_view_check(self) < 0 ? NULL : fh_frame_globals(self->frame);
}

static PyObject *fh_api_builtins(PyObject *view)
{
    FrameViewObject *self = (FrameViewObject *)view;
    return fh_view_check(self) < 0 ? NULL : fh_frame_builtins(self->frame);
}

static FhFrameViewAPI fh_frame_view_api = {
    FH_FRAME_VIEW_API_VERSION, sizeof(FhFrameViewAPI), &FrameViewType, fh_api_argument, fh_api_globals,
    fh_api_builtins,
};

PyObject *fh_frame_view_api_capsule(void)
{
    return PyCapsule_New(&fh_frame_view_api, FH_FRAME_VIEW_API_NAME, NULL);
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

PyTypeObject FrameViewType = {
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
