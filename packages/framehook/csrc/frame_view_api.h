/* frame_view_api.h: the C interface to FrameView that other extensions (loom-guards' accelerator) use
 * to read a view without attribute lookups or the f_locals dict.
 *
 * loom_framehook._framehook._frame_view_api is a capsule named FH_FRAME_VIEW_API_NAME holding a
 * pointer to this struct. A reader copies this layout (it cannot include this header: it is another
 * package) and checks `version` and `size` before using it; a later version only appends fields.
 * Every function is called with the GIL held.
 */
#ifndef LOOM_FRAMEHOOK_FRAME_VIEW_API_H
#define LOOM_FRAMEHOOK_FRAME_VIEW_API_H

#define FH_FRAME_VIEW_API_NAME "loom_framehook._framehook._frame_view_api"
#define FH_FRAME_VIEW_API_VERSION 1

typedef struct {
    unsigned int version;   /* FH_FRAME_VIEW_API_VERSION */
    unsigned int size;      /* sizeof(FhFrameViewAPI) */
    PyTypeObject *view_type; /* FrameView: the functions below take exactly that type */
    /* The argument `name` (a str) of the view's frame, as f_locals[name] would give it: 1 and *out a
     * borrowed reference, 0 if the frame has no such argument (no exception set), -1 with an exception
     * set (an expired view: RuntimeError, as its attributes raise). */
    int (*argument)(PyObject *view, PyObject *name, PyObject **out);
    /* The frame's globals / builtins: borrowed (alive while the view is valid), or NULL with an
     * exception set (an expired view). */
    PyObject *(*globals)(PyObject *view);
    PyObject *(*builtins)(PyObject *view);
} FhFrameViewAPI;

#endif /* LOOM_FRAMEHOOK_FRAME_VIEW_API_H */
