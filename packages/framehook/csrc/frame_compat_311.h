/* frame_compat_311.h: interpreter internals for CPython 3.11 (see frame_compat.h for the contract). */
#ifndef LOOM_FRAMEHOOK_FRAME_COMPAT_311_H
#define LOOM_FRAMEHOOK_FRAME_COMPAT_311_H

#include <internal/pycore_frame.h>

#define FH_COMPAT_FAMILY "3.11"

typedef _PyInterpreterFrame fh_frame;

static inline PyCodeObject *fh_frame_code(fh_frame *f) { return f->f_code; }
static inline PyObject *fh_frame_function(fh_frame *f) { return (PyObject *)f->f_func; }
static inline PyObject *fh_frame_globals(fh_frame *f) { return f->f_globals; }
static inline PyObject *fh_frame_builtins(fh_frame *f) { return f->f_builtins; }
static inline PyObject *fh_frame_locals_mapping(fh_frame *f) { return f->f_locals; }
static inline PyObject **fh_frame_localsplus(fh_frame *f) { return f->localsplus; }

/* A new frame has prev_instr one code unit before the first instruction. Generator and coroutine
 * frames live inside their generator (owner FRAME_OWNED_BY_GENERATOR) once RETURN_GENERATOR ran, so
 * every resumption, send(), throw() and close() is excluded by the owner test. */
static inline int fh_frame_is_first_entry(fh_frame *f)
{
    return f->owner == FRAME_OWNED_BY_THREAD && f->prev_instr == _PyCode_CODE(f->f_code) - 1;
}

/* On 3.11 the only caller that hands a thread-owned first-entry frame to the eval function is
 * _PyEval_Vector, and it clears and pops the frame itself once the eval function returns (whatever
 * the eval function did). Nothing to do. */
static inline void fh_frame_discard(PyThreadState *tstate, fh_frame *f)
{
    (void)tstate;
    (void)f;
}

/* Layout of the block co_extra points to (Objects/codeobject.c, unchanged since 3.6). */
typedef struct {
    Py_ssize_t ce_size;
    void *ce_extras[1];
} fh_code_extra_block;

static inline void *fh_code_extra(PyCodeObject *co, Py_ssize_t index)
{
    fh_code_extra_block *block = (fh_code_extra_block *)co->co_extra;
    return (block != NULL && index < block->ce_size) ? block->ce_extras[index] : NULL;
}

#endif /* LOOM_FRAMEHOOK_FRAME_COMPAT_311_H */
