/* frame_compat_313.h: interpreter internals for CPython 3.13 (see frame_compat.h for the contract). */
#ifndef LOOM_FRAMEHOOK_FRAME_COMPAT_313_H
#define LOOM_FRAMEHOOK_FRAME_COMPAT_313_H

#include <internal/pycore_frame.h>
#include <internal/pycore_ceval.h> /* _PyEval_FrameClearAndPop (exported on 3.13) */

#define FH_COMPAT_FAMILY "3.13"

typedef _PyInterpreterFrame fh_frame;

/* f_executable is a code object for every frame the eval function is handed. */
static inline PyCodeObject *fh_frame_code(fh_frame *f) { return (PyCodeObject *)f->f_executable; }
static inline PyObject *fh_frame_function(fh_frame *f) { return f->f_funcobj; }
static inline PyObject *fh_frame_globals(fh_frame *f) { return f->f_globals; }
static inline PyObject *fh_frame_builtins(fh_frame *f) { return f->f_builtins; }
static inline PyObject *fh_frame_locals_mapping(fh_frame *f) { return f->f_locals; }
static inline PyObject **fh_frame_localsplus(fh_frame *f) { return f->localsplus; }

/* 3.13 keeps the next instruction to run: a new frame points at its first code unit. */
static inline int fh_frame_is_first_entry(fh_frame *f)
{
    return f->owner == FRAME_OWNED_BY_THREAD &&
           f->instr_ptr == _PyCode_CODE((PyCodeObject *)f->f_executable);
}

/* The evaluator owns the frame (as on 3.12); 3.13 exports the function it uses to finish one. */
static inline void fh_frame_discard(PyThreadState *tstate, fh_frame *f)
{
    assert(f->owner == FRAME_OWNED_BY_THREAD);
    assert(f->frame_obj == NULL);
    _PyEval_FrameClearAndPop(tstate, f);
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

#endif /* LOOM_FRAMEHOOK_FRAME_COMPAT_313_H */
