/* frame_compat_312.h: interpreter internals for CPython 3.12 (see frame_compat.h for the contract). */
#ifndef LOOM_FRAMEHOOK_FRAME_COMPAT_312_H
#define LOOM_FRAMEHOOK_FRAME_COMPAT_312_H

#include <internal/pycore_frame.h>

#define FH_COMPAT_FAMILY "3.12"

typedef _PyInterpreterFrame fh_frame;

static inline PyCodeObject *fh_frame_code(fh_frame *f) { return f->f_code; }
static inline PyObject *fh_frame_function(fh_frame *f) { return f->f_funcobj; }
static inline PyObject *fh_frame_globals(fh_frame *f) { return f->f_globals; }
static inline PyObject *fh_frame_builtins(fh_frame *f) { return f->f_builtins; }
static inline PyObject *fh_frame_locals_mapping(fh_frame *f) { return f->f_locals; }
static inline PyObject **fh_frame_localsplus(fh_frame *f) { return f->localsplus; }

static inline int fh_frame_is_first_entry(fh_frame *f)
{
    return f->owner == FRAME_OWNED_BY_THREAD && f->prev_instr == _PyCode_CODE(f->f_code) - 1;
}

/* On 3.12 the evaluator owns the frame it is handed: _PyEval_Vector returns whatever the eval
 * function returns, and the default evaluator clears and pops the frame when it finishes. A frame
 * the eval function does not run must therefore be cleared and popped here. The functions CPython
 * uses for that (_PyFrame_ClearExceptCode, _PyThreadState_PopFrame, _PyObject_VirtualFree) are not
 * exported by libpython3.12, so this is the same work done with exported pieces only.
 *
 * Preconditions (all hold for a first-entry frame the eval function never ran): the frame is the
 * top of the thread's data stack, it is not linked into the thread's current-frame chain, and no
 * frame object was ever made for it (nothing can see an unstarted, unlinked frame). */
static inline void fh_frame_discard(PyThreadState *tstate, fh_frame *f)
{
    assert(f->owner == FRAME_OWNED_BY_THREAD);
    assert(f->frame_obj == NULL);
    assert((PyObject **)f + f->f_code->co_framesize == tstate->datastack_top);
    /* Clear: the same references _PyFrame_ClearExceptCode and clear_thread_frame drop. Finalizers
     * that run here push their frames above this one, which is still the top of the data stack. */
    for (int i = 0; i < f->stacktop; i++) {
        Py_XDECREF(f->localsplus[i]);
    }
    f->stacktop = 0;
    Py_XDECREF(f->f_locals);
    Py_DECREF(f->f_funcobj);
    Py_DECREF(f->f_code);
    /* Pop: if the frame opened a data-stack chunk, free the chunk and go back to the previous one
     * (the root chunk never starts with a frame that can be popped). */
    PyObject **base = (PyObject **)f;
    _PyStackChunk *chunk = tstate->datastack_chunk;
    if (base == &chunk->data[0]) {
        _PyStackChunk *previous = chunk->previous;
        assert(previous != NULL);
        tstate->datastack_top = &previous->data[previous->top];
        tstate->datastack_chunk = previous;
        tstate->datastack_limit = (PyObject **)(((char *)previous) + previous->size);
        PyObjectArenaAllocator arena;
        PyObject_GetArenaAllocator(&arena);
        arena.free(arena.ctx, chunk, chunk->size);
    }
    else {
        assert(tstate->datastack_top >= base);
        tstate->datastack_top = base;
    }
}

typedef struct {
    Py_ssize_t ce_size;
    void *ce_extras[1];
} fh_code_extra_block;

static inline void *fh_code_extra(PyCodeObject *co, Py_ssize_t index)
{
    fh_code_extra_block *block = (fh_code_extra_block *)co->co_extra;
    return (block != NULL && index < block->ce_size) ? block->ce_extras[index] : NULL;
}

#endif /* LOOM_FRAMEHOOK_FRAME_COMPAT_312_H */
