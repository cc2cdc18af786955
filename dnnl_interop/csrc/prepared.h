/* An execute and its stream's wait prepared once, to run many times with
 * dnnl_interop_run_prepared (prepared.c): NULL functions are oneDNN's own, as
 * for dnnl_interop_execute_and_wait. One struct, so that a call from Python
 * converts one argument instead of six: after a large primitive has run, the
 * caches hold none of the Python side, and every line the call touches is a
 * miss. Declared to cffi and to C alike; after execute.h. */
typedef struct {
    dnnl_interop_execute_fn execute;
    dnnl_interop_wait_fn wait;
    const_dnnl_primitive_t primitive;
    dnnl_stream_t stream;
    int nargs;
    const dnnl_exec_arg_t *args;
} dnnl_interop_prepared_t;
