/* test_hooks.c: a do-nothing eval function and a foreign chaining one, for benchmarks and tests only
 * (the private _install_test_hook, _test_hook_frames and _current_eval_name).
 */
#include "framehook_internal.h"

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

PyObject *fh_py_install_test_hook(PyObject *module, PyObject *arg)
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

PyObject *fh_py_test_hook_frames(PyObject *module, PyObject *noargs)
{
    return PyLong_FromUnsignedLongLong(fh_test_frames);
}

PyObject *fh_py_current_eval_name(PyObject *module, PyObject *noargs)
{
    _PyFrameEvalFunction current = fh_current_eval();
    const char *name = current == _PyEval_EvalFrameDefault ? "default"
                       : current == fh_eval                ? "loom_framehook"
                       : current == fh_noop_eval           ? "test-noop"
                       : current == fh_foreign_eval        ? "test-foreign"
                                                           : "other";
    return PyUnicode_FromString(name);
}
