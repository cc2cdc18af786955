/* An execute, then the wait for its stream, in one call from Python: the loop
 * users run, from a binding (_execution.BoundExecution). NULL functions are
 * oneDNN's own, through the function table (so a missing library or function
 * answers as any call does); the tests give others. After execute.h. */
static int dnnl_interop_execute_and_wait(dnnl_interop_execute_fn execute, dnnl_interop_wait_fn wait,
        const_dnnl_primitive_t primitive, dnnl_stream_t stream, int nargs, const dnnl_exec_arg_t *args) {
    dnnl_status_t status = (execute ? execute : dnnl_primitive_execute)(primitive, stream, nargs, args);
    if (status != dnnl_success)
        return (int)status;
    status = (wait ? wait : dnnl_stream_wait)(stream);
    return status == dnnl_success ? 0 : -(int)status;
}
