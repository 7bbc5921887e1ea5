/* frame_compat.h: the only door from the extension's C files into CPython's interpreter internals.
 *
 * Everything that depends on the layout of `_PyInterpreterFrame`, on how a frame's first entry is
 * recognised, on how a frame that is never run is disposed of, and on the layout of a code object's
 * co_extra block lives in ONE file per CPython version family:
 *
 *     frame_compat_311.h   CPython 3.11
 *     frame_compat_312.h   CPython 3.12
 *     frame_compat_313.h   CPython 3.13
 *
 * Each of them includes the internal headers it needs and defines exactly this interface (all
 * `static inline`, all taking a frame the eval function was handed and still owns):
 *
 *     FH_COMPAT_FAMILY                          "3.11", "3.12", ... (a string literal)
 *     typedef ... fh_frame;                     the interpreter frame type the eval function receives
 *     PyCodeObject *fh_frame_code(fh_frame *)   the code object being run (borrowed)
 *     PyObject *fh_frame_function(fh_frame *)   the function object (borrowed; check PyFunction_Check)
 *     PyObject *fh_frame_globals(fh_frame *)    borrowed
 *     PyObject *fh_frame_builtins(fh_frame *)   borrowed
 *     PyObject *fh_frame_locals_mapping(fh_frame *)
 *                                               the frame's f_locals mapping: NULL for function
 *                                               frames, the namespace for module and class bodies
 *     PyObject **fh_frame_localsplus(fh_frame *)
 *                                               the fast locals; at first entry the first
 *                                               argcount + kwonly + varargs + varkw slots hold the
 *                                               bound arguments (raw values, even for cell args)
 *     int fh_frame_is_first_entry(fh_frame *)   1 if the frame is owned by the thread's frame stack
 *                                               and has not executed any instruction yet (a call),
 *                                               0 for generator/coroutine resumptions and anything
 *                                               else
 *     void fh_frame_discard(PyThreadState *, fh_frame *)
 *                                               dispose of a first-entry frame the eval function
 *                                               decided not to run (it ran a replacement instead, or
 *                                               is returning an error): afterwards the frame must be
 *                                               exactly as if the default evaluator had run and
 *                                               finished it. Must be called once, after the eval
 *                                               function is done reading the frame.
 *     void *fh_code_extra(PyCodeObject *, Py_ssize_t index)
 *                                               a fast read of co_extra[index] (NULL if unset), the
 *                                               same answer _PyCode_GetExtra gives, without the call
 *
 * A port to a new CPython version is one new file plus one line below.
 */
#ifndef LOOM_FRAMEHOOK_FRAME_COMPAT_H
#define LOOM_FRAMEHOOK_FRAME_COMPAT_H

#include <Python.h>

#ifdef Py_GIL_DISABLED
#error "loom-framehook does not support free-threaded CPython builds yet"
#endif

#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000
#include "frame_compat_311.h"
#elif PY_VERSION_HEX >= 0x030C0000 && PY_VERSION_HEX < 0x030D0000
#include "frame_compat_312.h"
#elif PY_VERSION_HEX >= 0x030D0000 && PY_VERSION_HEX < 0x030E0000
#include "frame_compat_313.h"
#else
#error "loom-framehook supports CPython 3.11, 3.12 and 3.13 (add a frame_compat_3XX.h to port it)"
#endif

#endif /* LOOM_FRAMEHOOK_FRAME_COMPAT_H */
