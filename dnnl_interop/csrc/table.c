/* The function table: what every generated stub and trampoline calls. The
 * generator puts the slot, stub and trampoline of each function after this
 * file, then the table of symbols that bind.c walks.
 *
 * Each function has a slot holding oneDNN's function once a library is bound,
 * its stub until then and whenever the library lacks it. A slot holds its
 * pointer as the generic dnnl_interop_fn; calls cast it back to the function's
 * own type. Slots and the bound flag are C11 atomics: dnnl_interop_bind stores
 * with release, calls load with acquire, so a call that sees a bound slot (or
 * the flag) also sees everything the bind wrote before it. */
typedef void (*dnnl_interop_fn)(void);

static int _dnnl_interop_autoload(void); /* extern "Python": load_library() */
static atomic_int dnnl_interop_is_bound = 0;
/* What answered this thread's latest call through the table: 0 for a bound
 * function; for a stub, the function's 1-based index, negated if no library
 * could be loaded for that call (Python then holds this thread's error). */
static _Thread_local int dnnl_interop_unbound_index = 0;

static dnnl_interop_fn dnnl_interop_load(_Atomic(dnnl_interop_fn) *slot) {
    return atomic_load_explicit(slot, memory_order_acquire);
}

/* What every trampoline calls: the function its slot holds, after clearing
 * this thread's record of stub answers (a stub sets it again). */
static dnnl_interop_fn dnnl_interop_enter(_Atomic(dnnl_interop_fn) *slot) {
    dnnl_interop_unbound_index = 0;
    return dnnl_interop_load(slot);
}

/* What every stub does first: bind a library if none is bound (Python finds
 * it; a thread that arrives while another binds waits for that bind), then
 * read the slot again, since the bind may have filled it after this call
 * started. Returns the function the slot holds now, or NULL if it still holds
 * the stub (no library could be loaded, or it lacks the function): the index
 * is then left for Python to find (dnnl_interop_take_unbound). */
static dnnl_interop_fn dnnl_interop_resolve(
    _Atomic(dnnl_interop_fn) *slot, dnnl_interop_fn stub, int index) {
    int loaded = atomic_load_explicit(&dnnl_interop_is_bound, memory_order_acquire)
        || _dnnl_interop_autoload();
    dnnl_interop_fn function = dnnl_interop_load(slot);
    if (function != stub)
        return function;
    dnnl_interop_unbound_index = loaded ? index : -index;
    return NULL;
}
