/* The prepared execute then wait (prepared.h): dnnl_interop_execute_and_wait
 * of the struct's fields. After execute.c. */
static int dnnl_interop_run_prepared(const dnnl_interop_prepared_t *call) {
    return dnnl_interop_execute_and_wait(call->execute, call->wait, call->primitive, call->stream,
                                         call->nargs, call->args);
}
