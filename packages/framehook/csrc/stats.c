/* stats.c: the counters (fh_stats, bumped by eval_frame.c) and stats() / reset_stats(). */
#include "framehook_internal.h"

FhStats fh_stats;

PyObject *fh_py_stats(PyObject *module, PyObject *noargs)
{
    Py_ssize_t codes, entries, skipped_codes, run_only_codes;
    fh_cache_sizes(&codes, &entries, &skipped_codes, &run_only_codes);
    return Py_BuildValue(
        "{sKsKsKsKsKsKsKsKsKsKsKsKsnsnsnsnsnsO}",
        "frames", fh_stats.frames, "skipped", fh_stats.skipped, "unhooked", fh_stats.unhooked, "cache_hits",
        fh_stats.cache_hits, "cache_misses", fh_stats.cache_misses, "run_only_misses", fh_stats.run_only_misses,
        "callback_calls", fh_stats.callback_calls, "guard_calls", fh_stats.guard_calls, "replaced",
        fh_stats.replaced, "refused", fh_stats.refused, "errors", fh_stats.errors, "stack_refused",
        fh_stats.stack_refused, "codes", codes, "entries", entries, "skipped_codes", skipped_codes,
        "run_only_codes", run_only_codes, "threads", fh_active_threads, "installed",
        fh_current_eval() == fh_eval ? Py_True : Py_False);
}

PyObject *fh_py_reset_stats(PyObject *module, PyObject *noargs)
{
    memset(&fh_stats, 0, sizeof(fh_stats));
    Py_RETURN_NONE;
}
