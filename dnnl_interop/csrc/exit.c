/* Ending a process forked after CPU work without the exit handlers that hang it.
 *
 * oneDNN's CPU runtime waits, in its own exit-time destructors, for threads a
 * forked child does not have (_stream's at-fork hook). Registered in such a
 * child, this handler runs before every exit handler registered earlier (the
 * libraries' destructors among them), once Python has finalized: it flushes C
 * stdio and ends the process with exit()'s status, as multiprocessing's fork
 * children end with os._exit. */
#include <stdio.h>
#include <unistd.h>

#ifdef __GLIBC__
static void dnnl_interop_exit_now(int status, void *unused) {
    (void)unused;
    fflush(NULL);
    _exit(status);
}
#endif

static int dnnl_interop_skip_exit_handlers(void) {
#ifdef __GLIBC__
    return on_exit(dnnl_interop_exit_now, NULL) == 0;
#else
    return 0;
#endif
}
