/* The functions dnnl_interop_execute_and_wait (execute.c) takes: declared to
 * cffi and to C alike. */

typedef dnnl_status_t (*dnnl_interop_execute_fn)(
    const_dnnl_primitive_t, dnnl_stream_t, int, const dnnl_exec_arg_t *);
typedef dnnl_status_t (*dnnl_interop_wait_fn)(dnnl_stream_t);
