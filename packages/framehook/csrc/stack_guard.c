/* stack_guard.c: where this OS thread's C stack ends.
 *
 * With any PEP 523 eval function installed, every Python-to-Python call is also a C call (CPython
 * stops inlining them), so deep recursion uses the C stack where plain CPython would not. CPython 3.11
 * bounds recursion only by sys.getrecursionlimit(): with the limit raised, a deep recursion overflows
 * the C stack and the process dies with SIGSEGV. The eval function compares its stack position with
 * the limit computed here and refuses a new frame with RecursionError instead (3.12 and 3.13 have a C
 * recursion counter of their own, which usually fires first; the check costs one compare either way).
 *
 * The margin left below the limit is for what runs after the refusal (unwinding, tracebacks, an
 * `except RecursionError` handler) and for C code that recurses between two Python frames.
 */
#include "framehook_internal.h"

#if defined(__linux__) || defined(__APPLE__)
#include <pthread.h>
#endif

#define FH_STACK_MARGIN_MIN ((size_t)64 * 1024)
#define FH_STACK_MARGIN_MAX ((size_t)512 * 1024)

/* A sixteenth of the stack, within [64 KiB, 512 KiB]: 512 KiB for the usual 8 MiB stacks. */
static uintptr_t fh_limit_above(uintptr_t low, size_t size)
{
    size_t margin = size / 16;
    if (margin < FH_STACK_MARGIN_MIN) {
        margin = FH_STACK_MARGIN_MIN;
    }
    if (margin > FH_STACK_MARGIN_MAX) {
        margin = FH_STACK_MARGIN_MAX;
    }
    return margin < size ? low + margin : 0;
}

uintptr_t fh_stack_limit(void)
{
#if defined(__linux__)
    /* glibc answers for the main thread too (from the stack rlimit and /proc/self/maps). */
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) {
        return 0;
    }
    void *low = NULL;
    size_t size = 0;
    int rc = pthread_attr_getstack(&attr, &low, &size);
    pthread_attr_destroy(&attr);
    return (rc == 0 && low != NULL) ? fh_limit_above((uintptr_t)low, size) : 0;
#elif defined(__APPLE__)
    pthread_t self = pthread_self();
    uintptr_t high = (uintptr_t)pthread_get_stackaddr_np(self);
    size_t size = pthread_get_stacksize_np(self);
    return high > size ? fh_limit_above(high - size, size) : 0;
#else
    return 0;
#endif
}
