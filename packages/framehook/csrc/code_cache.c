/* code_cache.c: per-code state in co_extra.
 *
 * co_extra (one index requested at import) points to a CodeExtra: the SKIP mode, the run-only flag and an array of
 * entries, most recently used first, plus a version number bumped on every change. Every CodeExtra is
 * on a list for clear() and stats(); CPython frees one (fh_extra_free) with its code object. The eval
 * function reads it inline (fh_extra_get in framehook_internal.h).
 */
#include "framehook_internal.h"

Py_ssize_t fh_extra_index = -1;

static CodeExtra fh_all_extras = {&fh_all_extras, &fh_all_extras, 0, 0, 0, 0, 0, NULL, 0};

/* Called by CPython when a code object carrying our extra is deallocated. */
static void fh_extra_free(void *ptr)
{
    CodeExtra *extra = (CodeExtra *)ptr;
    if (extra == NULL) {
        return;
    }
    extra->prev->next = extra->next;
    extra->next->prev = extra->prev;
    PyObject **entries = extra->entries;
    Py_ssize_t n = extra->n;
    extra->entries = NULL;
    extra->n = extra->cap = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_DECREF(entries[i]);
    }
    PyMem_Free(entries);
    PyMem_Free(extra);
}

CodeExtra *fh_extra_get_or_create(PyCodeObject *code)
{
    CodeExtra *extra = fh_extra_get(code);
    if (extra != NULL) {
        return extra;
    }
    extra = PyMem_Calloc(1, sizeof(CodeExtra));
    if (extra == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    if (_PyCode_SetExtra((PyObject *)code, fh_extra_index, extra) < 0) {
        PyMem_Free(extra);
        return NULL;
    }
    extra->next = fh_all_extras.next;
    extra->prev = &fh_all_extras;
    fh_all_extras.next->prev = extra;
    fh_all_extras.next = extra;
    return extra;
}

int fh_extra_push_front(CodeExtra *extra, PyObject *entry)
{
    if (extra->n == extra->cap) {
        Py_ssize_t cap = extra->cap ? extra->cap * 2 : 4;
        PyObject **grown = PyMem_Realloc(extra->entries, (size_t)cap * sizeof(PyObject *));
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        extra->entries = grown;
        extra->cap = cap;
    }
    memmove(extra->entries + 1, extra->entries, (size_t)extra->n * sizeof(PyObject *));
    extra->entries[0] = Py_NewRef(entry);
    extra->n++;
    extra->version++;
    return 0;
}

/* Empty an extra's entries into `sink` (a list that takes the references), reset its skip flag.
 * The references are dropped by the caller once every extra is consistent, because dropping them can
 * run arbitrary code (which may itself free code objects and unlink their extras). */
static int fh_extra_clear_into(CodeExtra *extra, PyObject *sink)
{
    extra->skip = 0;
    extra->run_only = 0;
    extra->run_only_misses = 0;
    extra->version++;
    while (extra->n > 0) {
        PyObject *entry = extra->entries[extra->n - 1];
        if (PyList_Append(sink, entry) < 0) {
            return -1;
        }
        extra->n--;
        Py_DECREF(entry); /* the list holds it now */
    }
    return 0;
}

int fh_cache_clear(PyCodeObject *code)
{
    PyObject *sink = PyList_New(0);
    if (sink == NULL) {
        return -1;
    }
    int rc = 0;
    if (code != NULL) {
        CodeExtra *extra = fh_extra_get(code);
        if (extra != NULL) {
            rc = fh_extra_clear_into(extra, sink);
        }
    }
    else {
        for (CodeExtra *e = fh_all_extras.next; e != &fh_all_extras && rc == 0; e = e->next) {
            rc = fh_extra_clear_into(e, sink);
        }
    }
    Py_DECREF(sink); /* drops the entries; may run arbitrary code, now that every extra is consistent */
    return rc;
}

void fh_cache_sizes(Py_ssize_t *codes, Py_ssize_t *entries, Py_ssize_t *skipped_codes,
                    Py_ssize_t *run_only_codes)
{
    *codes = *entries = *skipped_codes = *run_only_codes = 0;
    for (CodeExtra *e = fh_all_extras.next; e != &fh_all_extras; e = e->next) {
        (*codes)++;
        *entries += e->n;
        *skipped_codes += e->skip ? 1 : 0;
        *run_only_codes += e->run_only ? 1 : 0;
    }
}

int fh_cache_init(void)
{
    if (fh_extra_index < 0) {
        fh_extra_index = _PyEval_RequestCodeExtraIndex(fh_extra_free);
        if (fh_extra_index < 0) {
            PyErr_SetString(PyExc_RuntimeError, "loom_framehook: no co_extra index left");
            return -1;
        }
    }
    return 0;
}
