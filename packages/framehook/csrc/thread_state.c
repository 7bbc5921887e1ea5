/* thread_state.c: per-thread state, and installing, removing and chaining the eval function.
 *
 * A thread that sets a callback gets an FhThread, stored in its thread state's dict, so it is
 * destroyed, and its callback released, when the thread exits; a C thread-local block (FhLocal, in
 * eval_frame.c) points at it for the hot path. The eval function is installed while at least one thread has a
 * callback and removed when none has; a foreign eval function found in place is chained to, never
 * overwritten.
 */
#include "framehook_internal.h"

_PyFrameEvalFunction fh_chained = NULL;
Py_ssize_t fh_active_threads = 0;

static PyObject *fh_thread_key = NULL; /* key of our object in each thread state dict */

/* ------------------------------------------------------------------------------------------------ */
/* Per-thread state                                                                                 */
/* ------------------------------------------------------------------------------------------------ */

static void FhThread_dealloc(FhThread *self)
{
    FhLocal *local = fh_local_block();
    if (local->thread == self) {
        local->thread = NULL;
        local->tstate = NULL; /* look again: a new thread state may reuse the address */
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

FH_NOINLINE FhThread *fh_thread_rebind(PyThreadState *tstate)
{
    /* Read the dict without creating one (PyThreadState_GetDict would): this also runs while a thread
     * state is being cleared, when a new dict would never be freed. */
    PyObject *dict = tstate->dict;
    PyObject *found = dict != NULL ? PyDict_GetItemWithError(dict, fh_thread_key) : NULL;
    if (found == NULL) {
        PyErr_Clear(); /* a failed lookup means "none": the hook must not raise here */
    }
    FhLocal *local = fh_local_block();
    if (local->stack_limit == 0) {
        local->stack_limit = fh_stack_limit(); /* once per OS thread: the block is thread-local */
    }
    local->thread = (found != NULL && Py_IS_TYPE(found, &FhThreadType)) ? (FhThread *)found : NULL;
    local->tstate = tstate;
    return local->thread;
}

FhThread *fh_thread_get(int create)
{
    PyThreadState *tstate = PyThreadState_Get();
    FhLocal *local = fh_local_block();
    FhThread *t = (local->tstate == tstate) ? local->thread : fh_thread_rebind(tstate);
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
    local->thread = t;
    local->tstate = tstate;
    return t;
}

/* ------------------------------------------------------------------------------------------------ */
/* Installing and removing the eval function                                                        */
/* ------------------------------------------------------------------------------------------------ */

_PyFrameEvalFunction fh_current_eval(void)
{
    /* The main interpreter's: no thread state needed (this also runs while a thread state is cleared). */
    return _PyInterpreterState_GetEvalFrameFunc(PyInterpreterState_Main());
}

void fh_set_eval(_PyFrameEvalFunction f)
{
    _PyInterpreterState_SetEvalFrameFunc(PyInterpreterState_Main(), f);
}

/* A thread gained a callback. The first one installs the eval function; if another PEP 523 user
 * already installed theirs, ours chains to it (frames we let run go to it, not to the default
 * evaluator) instead of overwriting it. */
void fh_activate(void)
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
void fh_deactivate(void)
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
/* Setting a thread's callback                                                                      */
/* ------------------------------------------------------------------------------------------------ */

PyObject *fh_set_callback(PyObject *cb)
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

/* ------------------------------------------------------------------------------------------------ */
/* Module initialisation                                                                            */
/* ------------------------------------------------------------------------------------------------ */

int fh_thread_state_init(void)
{
    if (PyType_Ready(&FhThreadType) < 0) {
        return -1;
    }
    if (fh_thread_key == NULL) {
        fh_thread_key = PyUnicode_InternFromString("loom_framehook._framehook.thread_state");
        if (fh_thread_key == NULL) {
            return -1;
        }
    }
    return 0;
}
