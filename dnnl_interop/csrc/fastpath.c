/* The common case of execute and wait, with the in-flight ledger's bookkeeping,
 * in C (after execute.h). dnnl_interop_fastpath_install puts six functions of
 * the Python C API (stable ABI only) into a dict given by its address (id(),
 * CPython's address of the object), as dlpack.c does; dnnl_interop/_inflight.py
 * installs them, and its invariants hold here as in its Python.
 *
 * Each function either does the whole job or, finding anything unusual, takes
 * no step and returns None: the caller then takes the Python path, which checks
 * everything and raises the right error: no step at all before the ledger's
 * lock is taken; after it, only registrations that the Python path repeats identically
 * (the same objects, in the same order, at the same epoch) before raising or
 * going on. The GIL is held throughout but around oneDNN's calls, which are
 * made holding the stream's lock (invariant 5), and while waiting for that lock,
 * as the Python path makes and takes them.
 *
 *   execute(primitive, stream, args) -> None | status     Primitive.execute
 *   wait(stream) -> None | status                          Stream.wait
 *   execute_bound(bound) -> None | status                  BoundExecution.execute()
 *   execute_bound_wait(bound) -> None | status             BoundExecution.execute(wait=True)
 *   configure(...)                                         once, by _execution
 *   set_calls(execute, wait) -> (execute, wait)            the functions called
 *   method(kind, type, python, after, doc) -> descriptor   the methods themselves
 *   slots({name: descriptor})                              the slots read through them
 *   lock_type() -> StreamLock                              the type of Ledger.lock
 *
 * A status is oneDNN's: 0, or the refusal of an execute (positive), or a wait's
 * failure negated (execute_bound_wait).
 *
 * method() makes Primitive.execute, Stream.wait and BoundExecution.execute method
 * descriptors of C, so that the loop users run enters no Python frame: each calls its
 * function above and returns None for a status 0; any other answer (None, or a status)
 * goes to after(self, *arguments, status), in Python, which takes the Python path or
 * raises; a call of another shape (keywords, another count) goes to python, the method
 * as written in Python, whole. */

#define DNNL_INTEROP_FAST_MAX_ARGS 64 /* more arguments take the Python path */

/* The fast calling convention of C functions, in the stable ABI since Python 3.10, the
 * lowest this module supports (cffi defines Py_LIMITED_API without a version, which
 * leaves the flag undefined). */
#ifndef METH_FASTCALL
#define METH_FASTCALL 0x0080
#endif
/* In the stable ABI since Python 3.4 (declared by the headers for a versioned limited API only). */
PyAPI_FUNC(void *) PyType_GetSlot(PyTypeObject *, int);

static struct {
    int configured;
    PyObject *stream_type, *memory_type, *arg_type;
    PyObject *stream_globals; /* _stream's namespace: admission, cpu_work_submitted */
    PyObject *array_types;    /* _buffers.array_types: memories over pyopencl Arrays exist */
    PyObject *shared;         /* _owned.shared: changes */
    PyObject *deferred;       /* shared.deferred: closed objects waiting for their users */
    PyObject *primitive_ctype, *stream_ctype, *memory_ctype;
    PyObject *workspace_origins; /* _execution.workspace_origins: workspaces by memory, their forward */
    dnnl_interop_execute_fn execute;
    dnnl_interop_wait_fn wait;
} dnnl_interop_fast;

/* Interned attribute names. */
static PyObject *dnnl_interop_fast_names[24];
enum {
    FN_ledger, FN_handle, FN_lock, FN_events, FN_deps, FN_pending, FN_epoch, FN_sid,
    FN_on_cpu, FN_execute_record, FN_in_flight, FN_executable, FN_size,
    FN_layout, FN_admission, FN_cpu_work_submitted, FN_changes, FN_let_go, FN_release_key, FN_fast, FN_checked,
    FN_data, FN_accepted, FN_accepted_workspace,
};
static const char *const dnnl_interop_fast_name_text[] = {
    "_ledger", "_handle", "lock", "events", "deps", "pending", "epoch", "sid",
    "on_cpu", "_execute_record", "_in_flight", "_executable", "_size",
    "_layout", "admission", "cpu_work_submitted", "changes", "let_go", "_release", "_fast", "_checked",
    "data", "accepted", "_accepted_workspace",
};
#define NAME(n) dnnl_interop_fast_names[FN_##n]

/* The descriptors of the names that are slots of the package's classes (__slots__),
 * given by slots(): such an attribute is read through its descriptor's __get__, as
 * PyObject_GetAttr finds and calls it, without the search of the type's dictionaries
 * (nothing can shadow a data descriptor). One of another class raises TypeError. */
static struct {
    PyObject *descriptor;
    descrgetfunc get;
} dnnl_interop_fast_slot[sizeof dnnl_interop_fast_names / sizeof *dnnl_interop_fast_names];

static PyObject *dnnl_interop_fast_get(PyObject *obj, int name) {
    if (dnnl_interop_fast_slot[name].get != NULL)
        return dnnl_interop_fast_slot[name].get(dnnl_interop_fast_slot[name].descriptor, obj,
                                                (PyObject *)Py_TYPE(obj));
    return PyObject_GetAttr(obj, dnnl_interop_fast_names[name]);
}

/* A stream's lock (Ledger.lock, made by lock_type()()): threading.Lock's acquire(blocking=True),
 * release(), locked() and with-statement over a lock of CPython's threads, which the functions
 * below take and let go of without a call of a Python method. Not reentrant; any thread may
 * release it, as threading.Lock. */
typedef struct {
    PyObject_HEAD
    PyThread_type_lock lock;
    int locked;
} dnnl_interop_stream_lock;

static PyTypeObject *dnnl_interop_stream_lock_type;

/* 1 taken, 0 not (blocking 0 and held), -1 with an exception (a signal handler raised while
 * waiting). Waits with the GIL let go; signals are handled while waiting, as threading.Lock does. */
static int dnnl_interop_stream_lock_take(dnnl_interop_stream_lock *self, int blocking) {
    PyLockStatus status = PyThread_acquire_lock_timed(self->lock, 0, 0);
    while (status != PY_LOCK_ACQUIRED && blocking) {
        Py_BEGIN_ALLOW_THREADS
        status = PyThread_acquire_lock_timed(self->lock, -1, 1);
        Py_END_ALLOW_THREADS
        if (status == PY_LOCK_INTR && Py_MakePendingCalls() < 0)
            return -1;
    }
    if (status != PY_LOCK_ACQUIRED)
        return 0;
    self->locked = 1;
    return 1;
}

static PyObject *dnnl_interop_stream_lock_acquire(PyObject *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"blocking", NULL};
    int blocking = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|p:acquire", keywords, &blocking))
        return NULL;
    int taken = dnnl_interop_stream_lock_take((dnnl_interop_stream_lock *)self, blocking);
    return taken < 0 ? NULL : PyBool_FromLong(taken);
}

static PyObject *dnnl_interop_stream_lock_release(PyObject *self, PyObject *unused) {
    (void)unused;
    dnnl_interop_stream_lock *lock = (dnnl_interop_stream_lock *)self;
    if (!lock->locked) {
        PyErr_SetString(PyExc_RuntimeError, "release unlocked lock");
        return NULL;
    }
    lock->locked = 0;
    PyThread_release_lock(lock->lock);
    Py_RETURN_NONE;
}

static PyObject *dnnl_interop_stream_lock_exit(PyObject *self, PyObject *args) {
    (void)args;
    return dnnl_interop_stream_lock_release(self, NULL);
}

static PyObject *dnnl_interop_stream_lock_locked(PyObject *self, PyObject *unused) {
    (void)unused;
    return PyBool_FromLong(((dnnl_interop_stream_lock *)self)->locked);
}

static PyObject *dnnl_interop_stream_lock_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    if (PyTuple_Size(args) != 0 || (kwargs != NULL && PyDict_Size(kwargs) != 0)) {
        PyErr_SetString(PyExc_TypeError, "StreamLock() takes no arguments");
        return NULL;
    }
    allocfunc alloc = (allocfunc)PyType_GetSlot(type, Py_tp_alloc);
    dnnl_interop_stream_lock *self = (dnnl_interop_stream_lock *)alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->locked = 0;
    self->lock = PyThread_allocate_lock();
    if (self->lock == NULL) {
        Py_DecRef((PyObject *)self);
        return PyErr_NoMemory();
    }
    return (PyObject *)self;
}

static void dnnl_interop_stream_lock_dealloc(PyObject *self) {
    dnnl_interop_stream_lock *lock = (dnnl_interop_stream_lock *)self;
    PyTypeObject *type = Py_TYPE(self);
    if (lock->lock != NULL) {
        if (lock->locked)
            PyThread_release_lock(lock->lock);
        PyThread_free_lock(lock->lock);
    }
    ((freefunc)PyType_GetSlot(type, Py_tp_free))(self);
    Py_DecRef((PyObject *)type); /* instances of a heap type hold a reference to it */
}

static PyMethodDef dnnl_interop_stream_lock_methods[] = {
    {"acquire", (PyCFunction)(void (*)(void))dnnl_interop_stream_lock_acquire, METH_VARARGS | METH_KEYWORDS,
     "acquire(blocking=True) -> bool: take the lock, waiting for it unless blocking is false."},
    {"release", dnnl_interop_stream_lock_release, METH_NOARGS, "Let go of the lock."},
    {"locked", dnnl_interop_stream_lock_locked, METH_NOARGS, "Whether the lock is held."},
    {"__enter__", (PyCFunction)(void (*)(void))dnnl_interop_stream_lock_acquire, METH_VARARGS | METH_KEYWORDS,
     "Take the lock."},
    {"__exit__", dnnl_interop_stream_lock_exit, METH_VARARGS, "Let go of the lock."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot dnnl_interop_stream_lock_slots[] = {
    {Py_tp_new, (void *)dnnl_interop_stream_lock_new},
    {Py_tp_dealloc, (void *)dnnl_interop_stream_lock_dealloc},
    {Py_tp_methods, dnnl_interop_stream_lock_methods},
    {Py_tp_doc, (void *)"A stream's lock: threading.Lock's acquire, release, locked and with, taken in C by "
                        "the fast path (dnnl_interop/csrc/fastpath.c)."},
    {0, NULL},
};

static PyType_Spec dnnl_interop_stream_lock_spec = {
    "dnnl_interop.StreamLock", sizeof(dnnl_interop_stream_lock), 0, Py_TPFLAGS_DEFAULT,
    dnnl_interop_stream_lock_slots,
};

/* lock_type() -> the StreamLock type (made once). */
static PyObject *dnnl_interop_fast_lock_type(PyObject *self, PyObject *unused) {
    (void)self, (void)unused;
    if (dnnl_interop_stream_lock_type == NULL)
        dnnl_interop_stream_lock_type = (PyTypeObject *)PyType_FromSpec(&dnnl_interop_stream_lock_spec);
    Py_IncRef((PyObject *)dnnl_interop_stream_lock_type);
    return (PyObject *)dnnl_interop_stream_lock_type;
}

/* Take the stream's lock (a StreamLock: every Ledger's), as the Python path does, waiting
 * for it with the GIL let go: 1 taken, 0 a lock of another kind (the Python path takes it),
 * -1 error (a signal handler raised while waiting). */
static int dnnl_interop_fast_lock(PyObject *lock) {
    if (dnnl_interop_stream_lock_type == NULL || Py_TYPE(lock) != dnnl_interop_stream_lock_type)
        return 0;
    return dnnl_interop_stream_lock_take((dnnl_interop_stream_lock *)lock, 1);
}

/* Let go of the StreamLock dnnl_interop_fast_lock took; keeps an exception being raised: -1
 * then, or if the lock was not held (never: this call took it). */
static int dnnl_interop_fast_unlock(PyObject *lock) {
    dnnl_interop_stream_lock *stream_lock = (dnnl_interop_stream_lock *)lock;
    if (!stream_lock->locked) {
        if (PyErr_Occurred() == NULL)
            PyErr_SetString(PyExc_RuntimeError, "release unlocked lock");
        return -1;
    }
    stream_lock->locked = 0;
    PyThread_release_lock(stream_lock->lock);
    return PyErr_Occurred() ? -1 : 0;
}

/* The end of each function below: result (None, a status, or NULL with an exception),
 * after letting go of the stream's lock if it was taken; NULL if that failed. */
static PyObject *dnnl_interop_fast_leave(PyObject *result, PyObject *lock, int locked) {
    if (locked > 0 && dnnl_interop_fast_unlock(lock) < 0) {
        Py_DecRef(result);
        return NULL;
    }
    return result;
}

/* The pointer a cffi pointer of ctype holds (NULL with an exception for anything else). */
static void *dnnl_interop_fast_pointer(PyObject *cdata, PyObject *ctype) {
    char *pointer = _cffi_to_c_pointer(cdata, (struct _cffi_ctypedescr *)ctype);
    if (pointer == NULL && !PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError, "a NULL handle"); /* never made by this binding */
    return pointer;
}

/* Whether obj is registered at epoch already (in_flight[sid] is epoch): then it is in
 * pending too (invariant 1), and registering it again would change nothing. 1, 0 or -1. */
static int dnnl_interop_fast_registered(PyObject *in_flight, PyObject *sid, PyObject *epoch) {
    PyObject *stamped = PyDict_GetItemWithError(in_flight, sid);
    if (stamped == NULL)
        return PyErr_Occurred() ? -1 : 0;
    return PyObject_RichCompareBool(stamped, epoch, Py_EQ);
}

/* The ledger's register: obj._in_flight[sid] = epoch; pending[id(obj)] = obj (unless
 * registered at epoch already: a submission after another one using obj, before a wait). */
static int dnnl_interop_fast_register(PyObject *obj, PyObject *sid, PyObject *epoch, PyObject *pending) {
    PyObject *in_flight = PyObject_GetAttr(obj, NAME(in_flight));
    if (in_flight == NULL)
        return -1;
    int status = dnnl_interop_fast_registered(in_flight, sid, epoch);
    if (status == 0)
        status = PyDict_SetItem(in_flight, sid, epoch);
    Py_DecRef(in_flight);
    if (status != 0)
        return status < 0 ? -1 : 0;
    PyObject *key = PyLong_FromVoidPtr(obj);
    if (key == NULL)
        return -1;
    status = PyDict_SetItem(pending, key, obj);
    Py_DecRef(key);
    return status;
}

static int dnnl_interop_fast_true(PyObject *obj) { /* a non-empty container, or True */
    return obj != NULL && obj != Py_None && PyObject_IsTrue(obj) > 0;
}

/* Whether the binding refuses new work now (at interpreter exit, in a forked child)
 * or the first CPU work of the process is being submitted: both take the Python path.
 * 1 yes, 0 no, -1 error. */
static int dnnl_interop_fast_unusual(PyObject *ledger) {
    PyObject *globals = dnnl_interop_fast.stream_globals;
    PyObject *admission = PyDict_GetItemWithError(globals, NAME(admission));
    if (admission == NULL)
        return PyErr_Occurred() ? -1 : 1;
    if (admission != Py_None)
        return 1;
    PyObject *submitted = PyDict_GetItemWithError(globals, NAME(cpu_work_submitted));
    if (submitted == NULL)
        return PyErr_Occurred() ? -1 : 1;
    if (submitted == Py_True)
        return 0;
    PyObject *on_cpu = dnnl_interop_fast_get(ledger, FN_on_cpu);
    if (on_cpu == NULL)
        return -1;
    Py_DecRef(on_cpu);
    return on_cpu == Py_True;
}

/* Whether primitive may be given memory as its workspace with no further check: the fast
 * case of _execution._refuse_other_forward (a memory workspace_memory did not allocate, or
 * one whose forward was found to be primitive's: in origin.accepted). First the record that
 * check leaves on a Primitive, _accepted_workspace: memory's basic weak reference (one a
 * live object: never another's, whatever ids are reused); then the WeakKeyDictionary and the
 * WeakSet themselves, looked up as their __contains__ does, by a weak reference (keeping
 * nothing alive). 1 yes; 0 for anything else, the Python path checking it (and, when it
 * passes, recording it: the next execute is taken here). */
static int dnnl_interop_fast_workspace_accepted(PyObject *primitive, PyObject *memory) {
    PyObject *record = dnnl_interop_fast_get(primitive, FN_accepted_workspace);
    if (record == NULL)
        PyErr_Clear(); /* never set: the tables below answer */
    /* The common case: the record refers to memory (a dead one refers to None). */
    if (record != NULL && PyWeakref_CheckRefExact(record) && PyWeakref_GetObject(record) == memory) {
        Py_DecRef(record);
        return 1;
    }
    PyObject *key = PyWeakref_NewRef(memory, NULL), *origins = NULL, *accepted = NULL, *primitive_key = NULL;
    int found = key == NULL ? -1 : key == record;
    if (found == 0) {
        origins = PyObject_GetAttr(dnnl_interop_fast.workspace_origins, NAME(data));
        PyObject *origin = origins && PyDict_CheckExact(origins) ? PyDict_GetItemWithError(origins, key) : NULL;
        if (origin == NULL)
            found = PyErr_Occurred() || origins == NULL || !PyDict_CheckExact(origins) ? -1 : 1; /* no origin */
        Py_IncRef(origin);
        PyObject *set = origin ? PyObject_GetAttr(origin, NAME(accepted)) : NULL;
        accepted = set ? PyObject_GetAttr(set, NAME(data)) : NULL;
        Py_DecRef(set);
        primitive_key = accepted ? PyWeakref_NewRef(primitive, NULL) : NULL;
        if (origin != NULL)
            found = primitive_key ? PySet_Contains(accepted, primitive_key) : -1; /* -1 but for a set */
        Py_DecRef(origin);
    }
    if (found < 0)
        PyErr_Clear(); /* the Python path meets it again and says so */
    Py_DecRef(record);
    Py_DecRef(key);
    Py_DecRef(origins);
    Py_DecRef(accepted);
    Py_DecRef(primitive_key);
    return found > 0;
}

/* Whether every index of required (ints) is among the nargs entries with a memory (the
 * arguments oneDNN reads without checking they are given), a workspace accepted for
 * primitive. memories: the entries' Memory objects (registered: pending holds them).
 * 1 yes, 0 no or error (cleared: the Python path says what is missing or refused). */
static int dnnl_interop_fast_all_given(PyObject *primitive, PyObject *required, const dnnl_exec_arg_t *entries,
                                       PyObject *const *memories, int nargs) {
    Py_ssize_t count = PyTuple_Size(required);
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = PyTuple_GetItem(required, i);
        long index = item && PyLong_Check(item) ? PyLong_AsLong(item) : -1; /* no ARG_* index is -1 */
        if (index == -1) {
            PyErr_Clear();
            return 0;
        }
        int given = -1;
        for (int j = 0; j < nargs && given < 0; j++)
            if (entries[j].arg == index && entries[j].memory != NULL)
                given = j;
        if (given < 0 || (index == DNNL_ARG_WORKSPACE
                          && !dnnl_interop_fast_workspace_accepted(primitive, memories[given])))
            return 0;
    }
    return 1;
}

/* execute(primitive, stream, args): Primitive.execute's common case, _execution.submit's
 * steps: an exact Stream and dict, int or Arg keys, exact Memory values (or None) of the
 * size and layout the primitive takes there, every argument it requires given (a workspace
 * accepted for it already: see dnnl_interop_fast_workspace_accepted), no scales, zero
 * points, runtime dimensions or binding scratchpad, no pyopencl Array behind any memory,
 * no tracked event on the stream. */
static PyObject *dnnl_interop_fast_execute(PyObject *self, PyObject *const *call_args, Py_ssize_t given) {
    (void)self;
    if (given != 3) {
        PyErr_SetString(PyExc_TypeError, "execute(primitive, stream, args): three arguments");
        return NULL;
    }
    PyObject *primitive = call_args[0], *stream = call_args[1], *args = call_args[2];
    if (!dnnl_interop_fast.configured || (PyObject *)Py_TYPE(stream) != dnnl_interop_fast.stream_type
            || Py_TYPE(args) != &PyDict_Type || PyList_Size(dnnl_interop_fast.array_types) != 0)
        Py_RETURN_NONE;
    Py_ssize_t count = PyDict_Size(args);
    if (count > DNNL_INTEROP_FAST_MAX_ARGS)
        Py_RETURN_NONE;
    PyObject *result = NULL, *ledger = NULL, *lock = NULL, *record = NULL, *sizes = NULL, *layouts = NULL,
             *required = NULL, *c_stream_object = NULL, *events = NULL, *epoch = NULL, *sid = NULL, *pending = NULL,
             *c_primitive_object = NULL;
    int locked = 0;
    /* (sizes, layouts, required) of a primitive the C path takes; None: the Python path's checks */
    record = dnnl_interop_fast_get(primitive, FN_execute_record);
    ledger = record ? dnnl_interop_fast_get(stream, FN_ledger) : NULL;
    if (ledger == NULL) {
        PyErr_Clear(); /* no primitive of this binding: the Python path says so */
        goto python;
    }
    if (Py_TYPE(record) != &PyTuple_Type || PyTuple_Size(record) != 3)
        goto python;
    sizes = PyTuple_GetItem(record, 0), layouts = PyTuple_GetItem(record, 1), required = PyTuple_GetItem(record, 2);
    if (Py_TYPE(sizes) != &PyDict_Type || Py_TYPE(layouts) != &PyDict_Type || Py_TYPE(required) != &PyTuple_Type)
        goto python;
    int unusual = dnnl_interop_fast_unusual(ledger);
    if (unusual)
        goto python_or_error;
    lock = dnnl_interop_fast_get(ledger, FN_lock);
    locked = lock ? dnnl_interop_fast_lock(lock) : -1;
    if (locked <= 0)
        goto python_or_error;
    /* The stream's lock is held: closing the stream takes it, so it stays open. */
    c_stream_object = dnnl_interop_fast_get(stream, FN_handle);
    events = c_stream_object ? dnnl_interop_fast_get(ledger, FN_events) : NULL;
    if (events == NULL)
        goto error;
    if (c_stream_object == Py_None || dnnl_interop_fast_true(events))
        goto python; /* closed (the Python path raises), or tracked submissions to let go of first */
    epoch = dnnl_interop_fast_get(ledger, FN_epoch);
    sid = epoch ? dnnl_interop_fast_get(ledger, FN_sid) : NULL;
    pending = sid ? dnnl_interop_fast_get(ledger, FN_pending) : NULL;
    if (pending == NULL || dnnl_interop_fast_register(primitive, sid, epoch, pending) < 0)
        goto error;
    dnnl_exec_arg_t entries[DNNL_INTEROP_FAST_MAX_ARGS];
    PyObject *memories[DNNL_INTEROP_FAST_MAX_ARGS]; /* the entries' Memory objects (or None), borrowed */
    int nargs = 0;
    Py_ssize_t position = 0;
    PyObject *index, *memory;
    while (PyDict_Next(args, &position, &index, &memory)) {
        if (nargs == DNNL_INTEROP_FAST_MAX_ARGS) /* never, unless args grew since it was counted */
            goto python;
        if (Py_TYPE(index) != &PyLong_Type && (PyObject *)Py_TYPE(index) != dnnl_interop_fast.arg_type)
            goto python;
        int overflow = 0;
        long arg = PyLong_AsLongAndOverflow(index, &overflow);
        if (overflow || arg < INT32_MIN || arg > INT32_MAX) {
            PyErr_Clear();
            goto python;
        }
        entries[nargs].arg = (int)arg;
        entries[nargs].memory = NULL;
        memories[nargs] = memory;
        if (memory != Py_None) {
            if ((PyObject *)Py_TYPE(memory) != dnnl_interop_fast.memory_type)
                goto python; /* before registering it: an object of another kind is not kept */
            if (dnnl_interop_fast_register(memory, sid, epoch, pending) < 0)
                goto error;
            /* Read after registering (invariant 2). */
            PyObject *handle = dnnl_interop_fast_get(memory, FN_executable);
            if (handle == NULL)
                goto error;
            if (handle == Py_None) { /* closed, being re-pointed, or no buffer */
                Py_DecRef(handle);
                goto python;
            }
            PyObject *size = dnnl_interop_fast_get(memory, FN_size);
            PyObject *layout = size ? dnnl_interop_fast_get(memory, FN_layout) : NULL;
            PyObject *needed = layout ? PyDict_GetItemWithError(sizes, index) : NULL;
            PyObject *expected = layout && !PyErr_Occurred() ? PyDict_GetItemWithError(layouts, index) : NULL;
            int other = PyErr_Occurred() ? -1 : 0;
            if (!other && needed != NULL)
                other = PyObject_RichCompareBool(size, needed, Py_LT);
            if (!other && expected != NULL && expected != layout)
                other = 1;
            if (!other)
                entries[nargs].memory = dnnl_interop_fast_pointer(handle, dnnl_interop_fast.memory_ctype);
            Py_DecRef(handle);
            Py_DecRef(size);
            Py_DecRef(layout);
            if (other < 0 || (!other && entries[nargs].memory == NULL))
                goto error;
            if (other)
                goto python; /* too small or of another layout: the Python path explains */
        }
        nargs++;
    }
    if (!dnnl_interop_fast_all_given(primitive, required, entries, memories, nargs))
        goto python; /* one missing, or a workspace not yet found to be of primitive's forward */
    c_primitive_object = dnnl_interop_fast_get(primitive, FN_handle);
    if (c_primitive_object == NULL)
        goto error;
    if (c_primitive_object == Py_None)
        goto python;
    void *c_primitive = dnnl_interop_fast_pointer(c_primitive_object, dnnl_interop_fast.primitive_ctype);
    void *c_stream = c_primitive ? dnnl_interop_fast_pointer(c_stream_object, dnnl_interop_fast.stream_ctype) : NULL;
    if (c_stream == NULL)
        goto error;
    dnnl_interop_execute_fn execute = dnnl_interop_fast.execute;
    dnnl_status_t status;
    Py_BEGIN_ALLOW_THREADS
    status = execute((const_dnnl_primitive_t)c_primitive, (dnnl_stream_t)c_stream, nargs, entries);
    Py_END_ALLOW_THREADS
    result = PyLong_FromLong((long)status);
    goto done;
python_or_error:
    if (PyErr_Occurred())
        goto error;
python:
    Py_IncRef(Py_None);
    result = Py_None;
    goto done;
error:
    result = NULL;
done:
    result = dnnl_interop_fast_leave(result, lock, locked);
    Py_DecRef(record); /* sizes, layouts and required are its items */
    Py_DecRef(ledger);
    Py_DecRef(lock);
    Py_DecRef(c_stream_object);
    Py_DecRef(events);
    Py_DecRef(epoch);
    Py_DecRef(sid);
    Py_DecRef(pending);
    Py_DecRef(c_primitive_object);
    return result;
}

/* The ledger's let_go(epoch) for a ledger without tracked events or other kept objects
 * (those take the Python method): what work stamped up to epoch used is let go. */
static int dnnl_interop_fast_let_go(PyObject *ledger, PyObject *epoch) {
    PyObject *events = dnnl_interop_fast_get(ledger, FN_events);
    PyObject *deps = events ? dnnl_interop_fast_get(ledger, FN_deps) : NULL;
    int status = deps == NULL ? -1 : 0;
    if (status == 0 && (dnnl_interop_fast_true(events) || dnnl_interop_fast_true(deps))) {
        PyObject *result = PyObject_CallMethodObjArgs(ledger, NAME(let_go), epoch, NULL);
        status = result == NULL ? -1 : 1;
        Py_DecRef(result);
    }
    Py_DecRef(events);
    Py_DecRef(deps);
    if (status != 0)
        return status < 0 ? -1 : 0;
    PyObject *pending = dnnl_interop_fast_get(ledger, FN_pending);
    if (pending == NULL)
        return -1;
    if (PyDict_Size(pending) == 0) {
        Py_DecRef(pending);
        return 0;
    }
    /* kept and claim are made only when needed: a wait that lets everything go (the
     * common one) empties pending in place and allocates nothing. */
    PyObject *sid = dnnl_interop_fast_get(ledger, FN_sid);
    PyObject *kept = NULL, *claim = NULL;
    status = sid == NULL ? -1 : 0;
    Py_ssize_t position = 0;
    PyObject *key, *obj;
    while (status == 0 && PyDict_Next(pending, &position, &key, &obj)) {
        PyObject *in_flight = dnnl_interop_fast_get(obj, FN_in_flight);
        if (in_flight == NULL) {
            status = -1;
            break;
        }
        PyObject *stamped = PyDict_GetItemWithError(in_flight, sid);
        int later = stamped != NULL ? PyObject_RichCompareBool(stamped, epoch, Py_GT) : (PyErr_Occurred() ? -1 : 0);
        if (later > 0) {
            if (kept == NULL && (kept = PyDict_New()) == NULL)
                status = -1;
            else
                status = PyDict_SetItem(kept, key, obj);
        } else if (later < 0 || PyDict_DelItem(in_flight, sid) < 0) { /* KeyError if unrecorded, as in Python */
            status = -1;
        } else if (PyDict_Contains(dnnl_interop_fast.deferred, key) > 0) { /* closed meanwhile */
            if (claim == NULL && (claim = PyList_New(0)) == NULL)
                status = -1;
            else
                status = PyList_Append(claim, obj);
        }
        Py_DecRef(in_flight);
    }
    if (status == 0 && kept != NULL)
        status = PyObject_SetAttr(ledger, NAME(pending), kept);
    else if (status == 0) /* the claimed objects stay alive in claim */
        PyDict_Clear(pending);
    for (Py_ssize_t i = 0; status == 0 && claim != NULL && i < PyList_Size(claim); i++) {
        /* letting go as any user does: the last one destroys */
        PyObject *result = PyObject_CallMethodObjArgs(PyList_GetItem(claim, i), NAME(release_key), Py_None, NULL);
        status = result == NULL ? -1 : 0;
        Py_DecRef(result);
    }
    Py_DecRef(pending);
    Py_DecRef(sid);
    Py_DecRef(kept);
    Py_DecRef(claim);
    return status;
}

/* wait(stream): Stream.wait of an open Stream whose lock is free. */
static PyObject *dnnl_interop_fast_wait(PyObject *self, PyObject *stream) {
    (void)self;
    if (!dnnl_interop_fast.configured || (PyObject *)Py_TYPE(stream) != dnnl_interop_fast.stream_type)
        Py_RETURN_NONE;
    PyObject *result = NULL, *ledger, *lock = NULL, *handle = NULL, *epoch = NULL, *next = NULL;
    int locked = 0;
    ledger = dnnl_interop_fast_get(stream, FN_ledger);
    if (ledger == NULL) {
        PyErr_Clear(); /* a stream never set up: the Python path says so */
        goto python;
    }
    lock = dnnl_interop_fast_get(ledger, FN_lock);
    locked = lock ? dnnl_interop_fast_lock(lock) : -1;
    if (locked <= 0)
        goto python_or_error;
    handle = dnnl_interop_fast_get(stream, FN_handle);
    if (handle == NULL)
        goto error;
    if (handle == Py_None)
        goto python; /* closed: the Python path says why */
    void *c_stream = dnnl_interop_fast_pointer(handle, dnnl_interop_fast.stream_ctype);
    epoch = c_stream ? dnnl_interop_fast_get(ledger, FN_epoch) : NULL; /* the ledger's begin_wait */
    PyObject *one = epoch ? PyLong_FromLong(1) : NULL;
    next = one ? PyNumber_Add(epoch, one) : NULL;
    Py_DecRef(one);
    if (next == NULL || PyObject_SetAttr(ledger, NAME(epoch), next) < 0)
        goto error;
    dnnl_interop_wait_fn wait = dnnl_interop_fast.wait;
    dnnl_status_t status;
    Py_BEGIN_ALLOW_THREADS
    status = wait((dnnl_stream_t)c_stream);
    Py_END_ALLOW_THREADS
    if (status == dnnl_success && dnnl_interop_fast_let_go(ledger, epoch) < 0) /* a failed wait lets nothing go */
        goto error;
    result = PyLong_FromLong((long)status);
    goto done;
python_or_error:
    if (PyErr_Occurred())
        goto error;
python:
    Py_IncRef(Py_None);
    result = Py_None;
    goto done;
error:
    result = NULL;
done:
    result = dnnl_interop_fast_leave(result, lock, locked);
    Py_DecRef(ledger);
    Py_DecRef(lock);
    Py_DecRef(handle);
    Py_DecRef(epoch);
    Py_DecRef(next);
    return result;
}

/* The ledger's register_all(objects, epoch), given the objects' in-flight records (nothing
 * to do if every one is registered at epoch already). */
static int dnnl_interop_fast_register_all(PyObject *ledger, PyObject *objects, PyObject *records, PyObject *sid) {
    PyObject *epoch = dnnl_interop_fast_get(ledger, FN_epoch);
    PyObject *pending = epoch ? dnnl_interop_fast_get(ledger, FN_pending) : NULL;
    int status = pending == NULL ? -1 : 0, registered = 1;
    for (Py_ssize_t i = 0; status == 0 && registered == 1 && i < PyTuple_Size(records); i++)
        registered = dnnl_interop_fast_registered(PyTuple_GetItem(records, i), sid, epoch);
    if (registered < 0)
        status = -1;
    for (Py_ssize_t i = 0; status == 0 && registered == 0 && i < PyTuple_Size(records); i++)
        status = PyDict_SetItem(PyTuple_GetItem(records, i), sid, epoch);
    if (status == 0 && registered == 0)
        status = PyDict_Update(pending, objects);
    Py_DecRef(epoch);
    Py_DecRef(pending);
    return status;
}

/* BoundExecution._fast, read by execute_bound: what never changes while the binding is open. */
enum { BOUND_OBJECTS, BOUND_RECORDS, BOUND_LEDGER, BOUND_SID, BOUND_STREAM, BOUND_PRIMITIVE, BOUND_C_STREAM,
       BOUND_NARGS, BOUND_ARGS, BOUND_FIELDS };

/* execute_bound(bound) and execute_bound_wait(bound): BoundExecution.execute of an open binding made by
 * Primitive.bind over no pyopencl Array, whose objects are unchanged since (_shared.changes
 * is the _checked it last found them unchanged at), on an open stream that has no tracked
 * event (with wait, nothing in flight). Its _fast: (its objects by id, their _in_flight
 * records, the stream's ledger, the ledger's sid, the stream, and the C call's primitive,
 * stream, nargs and args as addresses), None once closed. With wait, nothing is
 * registered unless the wait fails: the binding holds every handle, and the stream's lock
 * is held through both calls. */
static PyObject *dnnl_interop_fast_bound(PyObject *bound, int wait) {
    if (!dnnl_interop_fast.configured)
        Py_RETURN_NONE;
    PyObject *result = NULL, *fast = NULL, *again = NULL, *lock = NULL, *handle = NULL, *changes = NULL,
             *checked = NULL, *events = NULL, *deps = NULL, *pending = NULL;
    int locked = 0;
    fast = dnnl_interop_fast_get(bound, FN_fast);
    if (fast == NULL)
        goto error;
    if (fast == Py_None || !PyTuple_Check(fast) || PyTuple_Size(fast) != BOUND_FIELDS)
        goto python; /* closed, or not a plain execute */
    PyObject *ledger = PyTuple_GetItem(fast, BOUND_LEDGER); /* fast holds what is read of it */
    int unusual = dnnl_interop_fast_unusual(ledger);
    if (unusual)
        goto python_or_error;
    lock = dnnl_interop_fast_get(ledger, FN_lock);
    locked = lock ? dnnl_interop_fast_lock(lock) : -1;
    if (locked <= 0)
        goto python_or_error;
    /* Read again under the lock: the binding's close takes it, and sets _fast to None. */
    again = dnnl_interop_fast_get(bound, FN_fast);
    handle = again ? dnnl_interop_fast_get(PyTuple_GetItem(fast, BOUND_STREAM), FN_handle) : NULL;
    changes = handle ? PyObject_GetAttr(dnnl_interop_fast.shared, NAME(changes)) : NULL;
    checked = changes ? dnnl_interop_fast_get(bound, FN_checked) : NULL;
    events = checked ? dnnl_interop_fast_get(ledger, FN_events) : NULL;
    if (events == NULL)
        goto error;
    if (again != fast || handle == Py_None || dnnl_interop_fast_true(events))
        goto python;
    int same = PyObject_RichCompareBool(changes, checked, Py_EQ);
    if (same <= 0)
        goto python_or_error; /* something closed or changed buffers since: the Python path checks */
    void *c_primitive = PyLong_AsVoidPtr(PyTuple_GetItem(fast, BOUND_PRIMITIVE));
    void *c_stream = PyLong_AsVoidPtr(PyTuple_GetItem(fast, BOUND_C_STREAM));
    int nargs = (int)PyLong_AsLong(PyTuple_GetItem(fast, BOUND_NARGS));
    const dnnl_exec_arg_t *c_args = PyLong_AsVoidPtr(PyTuple_GetItem(fast, BOUND_ARGS));
    if (PyErr_Occurred())
        goto error;
    PyObject *objects = PyTuple_GetItem(fast, BOUND_OBJECTS), *records = PyTuple_GetItem(fast, BOUND_RECORDS),
             *sid = PyTuple_GetItem(fast, BOUND_SID);
    dnnl_interop_execute_fn execute = dnnl_interop_fast.execute;
    dnnl_interop_wait_fn wait_fn = dnnl_interop_fast.wait;
    dnnl_status_t status, waited = dnnl_success;
    if (wait) {
        deps = dnnl_interop_fast_get(ledger, FN_deps);
        pending = deps ? dnnl_interop_fast_get(ledger, FN_pending) : NULL;
        if (pending == NULL)
            goto error;
        if (dnnl_interop_fast_true(deps) || dnnl_interop_fast_true(pending))
            goto python; /* other work in flight: the Python path waits for it too */
        Py_BEGIN_ALLOW_THREADS
        status = execute((const_dnnl_primitive_t)c_primitive, (dnnl_stream_t)c_stream, nargs, c_args);
        if (status == dnnl_success)
            waited = wait_fn((dnnl_stream_t)c_stream);
        Py_END_ALLOW_THREADS
        /* A failed wait finished nothing known: the work keeps what it uses (invariant 3). */
        if (waited != dnnl_success && dnnl_interop_fast_register_all(ledger, objects, records, sid) < 0)
            goto error;
        result = PyLong_FromLong(status != dnnl_success ? (long)status : -(long)waited);
        goto done;
    }
    if (dnnl_interop_fast_register_all(ledger, objects, records, sid) < 0)
        goto error;
    Py_BEGIN_ALLOW_THREADS
    status = execute((const_dnnl_primitive_t)c_primitive, (dnnl_stream_t)c_stream, nargs, c_args);
    Py_END_ALLOW_THREADS
    result = PyLong_FromLong((long)status);
    goto done;
python_or_error:
    if (PyErr_Occurred())
        goto error;
python:
    Py_IncRef(Py_None);
    result = Py_None;
    goto done;
error:
    result = NULL;
done:
    result = dnnl_interop_fast_leave(result, lock, locked);
    Py_DecRef(fast);
    Py_DecRef(again);
    Py_DecRef(lock);
    Py_DecRef(handle);
    Py_DecRef(changes);
    Py_DecRef(checked);
    Py_DecRef(events);
    Py_DecRef(deps);
    Py_DecRef(pending);
    return result;
}

static PyObject *dnnl_interop_fast_execute_bound(PyObject *self, PyObject *bound) {
    (void)self;
    return dnnl_interop_fast_bound(bound, 0);
}

static PyObject *dnnl_interop_fast_execute_bound_wait(PyObject *self, PyObject *bound) {
    (void)self;
    return dnnl_interop_fast_bound(bound, 1);
}

/* configure(Stream, Memory, Arg, _stream's namespace, array_types, shared,
 *           primitive ctype, stream ctype, memory ctype, workspace_origins) */
static PyObject *dnnl_interop_fast_configure(PyObject *self, PyObject *call_args) {
    (void)self;
    PyObject *items[10];
    if (!PyArg_UnpackTuple(call_args, "configure", 10, 10, &items[0], &items[1], &items[2], &items[3], &items[4],
                           &items[5], &items[6], &items[7], &items[8], &items[9]))
        return NULL;
    if (!PyDict_Check(items[3]) || !PyList_Check(items[4])) {
        PyErr_SetString(PyExc_TypeError, "configure: a namespace dict and the array_types list");
        return NULL;
    }
    PyObject *deferred = PyObject_GetAttrString(items[5], "deferred");
    if (deferred == NULL)
        return NULL;
    for (int i = 0; i < 10; i++)
        Py_IncRef(items[i]);
    /* Kept for the life of the process: configured once, at import. */
    dnnl_interop_fast.stream_type = items[0];
    dnnl_interop_fast.memory_type = items[1];
    dnnl_interop_fast.arg_type = items[2];
    dnnl_interop_fast.stream_globals = items[3];
    dnnl_interop_fast.array_types = items[4];
    dnnl_interop_fast.shared = items[5];
    dnnl_interop_fast.primitive_ctype = items[6];
    dnnl_interop_fast.stream_ctype = items[7];
    dnnl_interop_fast.memory_ctype = items[8];
    dnnl_interop_fast.workspace_origins = items[9];
    dnnl_interop_fast.deferred = deferred;
    dnnl_interop_fast.configured = 1;
    Py_RETURN_NONE;
}

/* slots({name: descriptor}): read these names through these data descriptors (the
 * __slots__ members of the classes whose objects have them: see dnnl_interop_fast_get). */
static PyObject *dnnl_interop_fast_slots(PyObject *self, PyObject *mapping) {
    (void)self;
    if (!PyDict_Check(mapping)) {
        PyErr_SetString(PyExc_TypeError, "slots: a dict of names and descriptors");
        return NULL;
    }
    Py_ssize_t position = 0;
    PyObject *name, *descriptor;
    while (PyDict_Next(mapping, &position, &name, &descriptor)) {
        int found = -1;
        for (int i = 0; i < (int)(sizeof dnnl_interop_fast_names / sizeof *dnnl_interop_fast_names); i++)
            if (dnnl_interop_fast_names[i] != NULL && PyUnicode_Check(name)
                && PyUnicode_Compare(name, dnnl_interop_fast_names[i]) == 0)
                found = i;
        /* a data descriptor: a getter and a setter (PyType_GetSlot takes static types since 3.10) */
        descrgetfunc get = found >= 0 ? (descrgetfunc)PyType_GetSlot(Py_TYPE(descriptor), Py_tp_descr_get) : NULL;
        if (get == NULL || PyType_GetSlot(Py_TYPE(descriptor), Py_tp_descr_set) == NULL) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "slots: %R is no data descriptor of a name the fast path reads", name);
            return NULL;
        }
        Py_IncRef(descriptor);
        Py_DecRef(dnnl_interop_fast_slot[found].descriptor);
        dnnl_interop_fast_slot[found].descriptor = descriptor;
        dnnl_interop_fast_slot[found].get = get;
    }
    Py_RETURN_NONE;
}

/* set_calls(execute, wait): the addresses of the functions the fast path calls for
 * oneDNN's execute and wait (0: oneDNN's own, through the function table); returns
 * the previous ones. For tests and benchmarks that put their own functions there. */
static PyObject *dnnl_interop_fast_set_calls(PyObject *self, PyObject *call_args) {
    (void)self;
    PyObject *execute, *wait;
    if (!PyArg_UnpackTuple(call_args, "set_calls", 2, 2, &execute, &wait))
        return NULL;
    void *execute_fn = PyLong_AsVoidPtr(execute), *wait_fn = PyLong_AsVoidPtr(wait);
    if (PyErr_Occurred())
        return NULL;
    void *old_execute = (void *)dnnl_interop_fast.execute, *old_wait = (void *)dnnl_interop_fast.wait;
    PyObject *previous = Py_BuildValue(
        "(KK)", (unsigned long long)(old_execute == (void *)dnnl_primitive_execute ? 0 : (uintptr_t)old_execute),
        (unsigned long long)(old_wait == (void *)dnnl_stream_wait ? 0 : (uintptr_t)old_wait));
    if (previous == NULL)
        return NULL;
    dnnl_interop_fast.execute = execute_fn ? (dnnl_interop_execute_fn)execute_fn : dnnl_primitive_execute;
    dnnl_interop_fast.wait = wait_fn ? (dnnl_interop_wait_fn)wait_fn : dnnl_stream_wait;
    return previous;
}

/* The methods themselves (see the top): for each kind, the method as written in Python
 * and the Python function that takes every answer but 0. Set by method(), once per kind. */
enum { METHOD_EXECUTE, METHOD_WAIT, METHOD_EXECUTE_BOUND, METHOD_KINDS };
static const char *const dnnl_interop_fast_method_kinds[METHOD_KINDS] = {"execute", "wait", "execute_bound"};
static struct {
    PyObject *python, *after;
} dnnl_interop_fast_method_of[METHOD_KINDS];

/* The tuple (self, *args, last), without last where it is NULL; takes last (also on failure). */
static PyObject *dnnl_interop_fast_arguments(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                             PyObject *last) {
    PyObject *tuple = PyTuple_New(nargs + 1 + (last != NULL));
    if (tuple == NULL) {
        Py_DecRef(last);
        return NULL;
    }
    for (Py_ssize_t i = 0; i <= nargs; i++) {
        PyObject *item = i == 0 ? self : args[i - 1];
        Py_IncRef(item);
        PyTuple_SetItem(tuple, i, item); /* steals item */
    }
    if (last != NULL)
        PyTuple_SetItem(tuple, nargs + 1, last);
    return tuple;
}

/* The method as written in Python, called with what the descriptor was given. */
static PyObject *dnnl_interop_fast_python(int kind, PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                          PyObject *kwnames) {
    Py_ssize_t nkw = kwnames ? PyTuple_Size(kwnames) : 0;
    PyObject *positional = dnnl_interop_fast_arguments(self, args, nargs, NULL);
    PyObject *keywords = nkw ? PyDict_New() : NULL, *result = NULL;
    int failed = positional == NULL || (nkw && keywords == NULL);
    for (Py_ssize_t i = 0; !failed && i < nkw; i++)
        failed = PyDict_SetItem(keywords, PyTuple_GetItem(kwnames, i), args[nargs + i]) < 0;
    if (!failed)
        result = PyObject_Call(dnnl_interop_fast_method_of[kind].python, positional, keywords);
    Py_DecRef(positional);
    Py_DecRef(keywords);
    return result;
}

/* The end of a method: None for a status 0, else after(self, *args, status) (status None
 * or an int); NULL as given. Takes status. */
static PyObject *dnnl_interop_fast_answer(int kind, PyObject *status, PyObject *self, PyObject *const *args,
                                          Py_ssize_t nargs) {
    if (status == NULL)
        return NULL;
    if (status != Py_None && PyLong_Check(status) && PyLong_AsLong(status) == 0) {
        Py_DecRef(status);
        Py_RETURN_NONE;
    }
    PyObject *call = dnnl_interop_fast_arguments(self, args, nargs, status);
    PyObject *result = call ? PyObject_Call(dnnl_interop_fast_method_of[kind].after, call, NULL) : NULL;
    Py_DecRef(call);
    return result;
}

/* Primitive.execute(stream, args) */
static PyObject *dnnl_interop_fast_execute_method(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                                  PyObject *kwnames) {
    if (nargs != 2 || kwnames != NULL)
        return dnnl_interop_fast_python(METHOD_EXECUTE, self, args, nargs, kwnames);
    PyObject *const call[3] = {self, args[0], args[1]};
    return dnnl_interop_fast_answer(METHOD_EXECUTE, dnnl_interop_fast_execute(NULL, call, 3), self, args, 2);
}

/* Stream.wait() */
static PyObject *dnnl_interop_fast_wait_method(PyObject *self, PyObject *unused) {
    (void)unused;
    return dnnl_interop_fast_answer(METHOD_WAIT, dnnl_interop_fast_wait(NULL, self), self, NULL, 0);
}

/* BoundExecution.execute(wait=False); after(self, wait, status) */
static PyObject *dnnl_interop_fast_execute_bound_method(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                                        PyObject *kwnames) {
    Py_ssize_t nkw = kwnames ? PyTuple_Size(kwnames) : 0;
    PyObject *wait = nargs + nkw == 0 ? Py_False : args[0];
    if (nargs + nkw > 1 || (nkw == 1 && PyUnicode_CompareWithASCIIString(PyTuple_GetItem(kwnames, 0), "wait") != 0))
        return dnnl_interop_fast_python(METHOD_EXECUTE_BOUND, self, args, nargs, kwnames);
    int truth = PyObject_IsTrue(wait);
    if (truth < 0)
        return NULL;
    PyObject *const given[1] = {truth ? Py_True : Py_False};
    return dnnl_interop_fast_answer(METHOD_EXECUTE_BOUND, dnnl_interop_fast_bound(self, truth), self, given, 1);
}

static const struct {
    PyCFunction function;
    int flags;
} dnnl_interop_fast_method_functions[METHOD_KINDS] = {
    {(PyCFunction)(void (*)(void))dnnl_interop_fast_execute_method, METH_FASTCALL | METH_KEYWORDS},
    {dnnl_interop_fast_wait_method, METH_NOARGS},
    {(PyCFunction)(void (*)(void))dnnl_interop_fast_execute_bound_method, METH_FASTCALL | METH_KEYWORDS},
};

/* method(kind, type, python, after, doc) -> a method descriptor of type, named as python,
 * with doc (its text signature first, as CPython's own methods have it). */
static PyObject *dnnl_interop_fast_method(PyObject *self, PyObject *call_args) {
    (void)self;
    PyObject *kind_name, *type, *python, *after, *doc;
    if (!PyArg_UnpackTuple(call_args, "method", 5, 5, &kind_name, &type, &python, &after, &doc))
        return NULL;
    int kind = -1;
    for (int i = 0; i < METHOD_KINDS; i++)
        if (PyUnicode_Check(kind_name) && PyUnicode_CompareWithASCIIString(kind_name, dnnl_interop_fast_method_kinds[i]) == 0)
            kind = i;
    if (kind < 0 || !PyType_Check(type) || !PyCallable_Check(python) || !PyCallable_Check(after)
        || !PyUnicode_Check(doc)) {
        PyErr_SetString(PyExc_TypeError, "method(kind, type, python, after, doc): a kind of execute, wait or "
                                         "execute_bound, a type, two callables and a str");
        return NULL;
    }
    /* UTF-8 through bytes: PyUnicode_AsUTF8AndSize is not in the limited API this module is built for */
    PyObject *name = PyObject_GetAttrString(python, "__name__");
    PyObject *name_bytes = name && PyUnicode_Check(name) ? PyUnicode_AsUTF8String(name) : NULL;
    PyObject *doc_bytes = name_bytes ? PyUnicode_AsUTF8String(doc) : NULL;
    Py_ssize_t name_size = 0, doc_size = 0;
    char *name_text = NULL, *doc_text = NULL;
    if (doc_bytes == NULL || PyBytes_AsStringAndSize(name_bytes, &name_text, &name_size) < 0
        || PyBytes_AsStringAndSize(doc_bytes, &doc_text, &doc_size) < 0)
        doc_text = NULL;
    /* Kept for the life of the process, as the descriptor refers to them (one per kind and import). */
    PyMethodDef *definition = doc_text ? PyMem_Malloc(sizeof *definition) : NULL;
    char *texts = definition ? PyMem_Malloc((size_t)name_size + (size_t)doc_size + 2) : NULL;
    PyObject *descriptor = NULL;
    if (texts != NULL) {
        memcpy(texts, name_text, (size_t)name_size + 1);
        memcpy(texts + name_size + 1, doc_text, (size_t)doc_size + 1);
        definition->ml_name = texts;
        definition->ml_meth = dnnl_interop_fast_method_functions[kind].function;
        definition->ml_flags = dnnl_interop_fast_method_functions[kind].flags;
        definition->ml_doc = texts + name_size + 1;
        descriptor = PyDescr_NewMethod((PyTypeObject *)type, definition);
    } else if (doc_text != NULL) {
        PyErr_NoMemory();
    }
    Py_DecRef(name);
    Py_DecRef(name_bytes);
    Py_DecRef(doc_bytes);
    if (descriptor == NULL) {
        PyMem_Free(definition);
        PyMem_Free(texts);
        return NULL;
    }
    Py_IncRef(python);
    Py_IncRef(after);
    Py_DecRef(dnnl_interop_fast_method_of[kind].python);
    Py_DecRef(dnnl_interop_fast_method_of[kind].after);
    dnnl_interop_fast_method_of[kind].python = python;
    dnnl_interop_fast_method_of[kind].after = after;
    return descriptor;
}

static PyMethodDef dnnl_interop_fast_methods[] = {
    {"execute", (PyCFunction)(void (*)(void))dnnl_interop_fast_execute, METH_FASTCALL,
     "Primitive.execute's common case, or None."},
    {"wait", dnnl_interop_fast_wait, METH_O, "Stream.wait's common case, or None."},
    {"execute_bound", dnnl_interop_fast_execute_bound, METH_O, "BoundExecution.execute()'s common case, or None."},
    {"execute_bound_wait", dnnl_interop_fast_execute_bound_wait, METH_O,
     "BoundExecution.execute(wait=True)'s common case, or None."},
    {"configure", dnnl_interop_fast_configure, METH_VARARGS, "The package's types and state, once."},
    {"set_calls", dnnl_interop_fast_set_calls, METH_VARARGS, "The execute and wait functions called (addresses)."},
    {"method", dnnl_interop_fast_method, METH_VARARGS, "A method of C over the functions above (see fastpath.c)."},
    {"slots", dnnl_interop_fast_slots, METH_O, "The descriptors of the slots read by name (see fastpath.c)."},
    {"lock_type", dnnl_interop_fast_lock_type, METH_NOARGS, "The type of a stream's lock (see fastpath.c)."},
    {NULL, NULL, 0, NULL},
};

static int dnnl_interop_fastpath_install(uintptr_t namespace) {
    dnnl_interop_fast.execute = dnnl_primitive_execute;
    dnnl_interop_fast.wait = dnnl_stream_wait;
    return dnnl_interop_install(namespace, dnnl_interop_fast_methods, dnnl_interop_fast_names,
                                dnnl_interop_fast_name_text,
                                (int)(sizeof dnnl_interop_fast_names / sizeof *dnnl_interop_fast_names));
}
