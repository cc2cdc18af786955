/* DLPack capsules (after dlpack.h). PyCapsules are Python objects, which cffi
 * cannot pass: dnnl_interop_dlpack_install puts three C functions of the Python
 * C API (stable ABI only) into a dict given by its address (id(), CPython's
 * address of the object): export and export_memory (a new capsule over a copy,
 * or over a memory's own buffer) and take (a consumer's side: check, rename and
 * read a capsule). The capsule destructor and the deleters are C: they may run
 * at interpreter shutdown, or in a thread without the GIL. See
 * dnnl_interop/_dlpack.py for the Python side. */
#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (1UL << 2UL)

/* What the deleters of the tensors exported here do: let go of the Python
 * object that keeps the data valid, then free the one block that holds the
 * struct, the shape and the strides. A memory's own buffer is kept by a use of
 * the memory's handle (owner: a (memory, key) tuple, ended by memory._release(key));
 * a copy by the array that holds it (owner: the array). After finalization the
 * reference is leaked rather than touching a dead interpreter. */
static void dnnl_interop_dlpack_free(void *block, void *owner, int release) {
    if (owner != NULL && Py_IsInitialized()) {
        PyGILState_STATE gil = PyGILState_Ensure();
        PyObject *type, *value, *traceback;
        PyErr_Fetch(&type, &value, &traceback);
        if (release) {
            PyObject *result = PyObject_CallMethod(
                PyTuple_GetItem((PyObject *)owner, 0), "_release", "(O)", PyTuple_GetItem((PyObject *)owner, 1));
            if (result == NULL)
                PyErr_WriteUnraisable((PyObject *)owner);
            Py_DecRef(result);
        }
        Py_DecRef((PyObject *)owner);
        PyErr_Restore(type, value, traceback);
        PyGILState_Release(gil);
    }
    free(block);
}
static void dnnl_interop_dlpack_deleter(DLManagedTensor *self) {
    dnnl_interop_dlpack_free(self, self->manager_ctx, 0);
}
static void dnnl_interop_dlpack_deleter_versioned(DLManagedTensorVersioned *self) {
    dnnl_interop_dlpack_free(self, self->manager_ctx, 0);
}
static void dnnl_interop_dlpack_release_deleter(DLManagedTensor *self) {
    dnnl_interop_dlpack_free(self, self->manager_ctx, 1);
}
static void dnnl_interop_dlpack_release_deleter_versioned(DLManagedTensorVersioned *self) {
    dnnl_interop_dlpack_free(self, self->manager_ctx, 1);
}

/* A consumer's release of a tensor it took: its producer's deleter, once. */
static void dnnl_interop_dlpack_delete(DLManagedTensor *managed) {
    if (managed != NULL && managed->deleter != NULL)
        managed->deleter(managed);
}
static void dnnl_interop_dlpack_delete_versioned(DLManagedTensorVersioned *managed) {
    if (managed != NULL && managed->deleter != NULL)
        managed->deleter(managed);
}

/* The destructor of the capsules exported here: a capsule no consumer took
 * (still named "dltensor[_versioned]") releases its tensor. */
static void dnnl_interop_dlpack_capsule_destructor(PyObject *capsule) {
    if (PyCapsule_IsValid(capsule, "used_dltensor_versioned") || PyCapsule_IsValid(capsule, "used_dltensor"))
        return;
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    if (PyCapsule_IsValid(capsule, "dltensor_versioned"))
        dnnl_interop_dlpack_delete_versioned(PyCapsule_GetPointer(capsule, "dltensor_versioned"));
    else if (PyCapsule_IsValid(capsule, "dltensor"))
        dnnl_interop_dlpack_delete(PyCapsule_GetPointer(capsule, "dltensor"));
    else
        PyErr_WriteUnraisable(capsule);
    PyErr_Restore(type, value, traceback);
}

/* A capsule over a new tensor: template (see export) with data at address; owner
 * (a new reference, taken over) is its manager_ctx; release: whether the
 * deleter ends a use of a memory's handle (see dnnl_interop_dlpack_free). */
static PyObject *dnnl_interop_dlpack_capsule(PyObject *template_, void *address, PyObject *owner,
                                             unsigned long long flags, long minor, int release) {
    char *bytes;
    Py_ssize_t size;
    DLTensor model;
    if (PyBytes_AsStringAndSize(template_, &bytes, &size) < 0)
        goto fail;
    if (size < (Py_ssize_t)sizeof model) {
        PyErr_SetString(PyExc_ValueError, "export: the template is shorter than a DLTensor");
        goto fail;
    }
    memcpy(&model, bytes, sizeof model);
    size_t dims = (size_t)size - sizeof model;
    if (model.ndim < 0 || dims != 2 * (size_t)model.ndim * sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "export: the template holds no shape and strides of its ndim");
        goto fail;
    }
    size_t head = minor >= 0 ? sizeof(DLManagedTensorVersioned) : sizeof(DLManagedTensor);
    char *block = malloc(head + dims);
    if (block == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    int64_t *shape = (int64_t *)(block + head);
    memcpy(shape, bytes + sizeof model, dims);
    model.data = address;
    model.shape = shape;
    model.strides = shape + model.ndim;
    const char *name;
    if (minor >= 0) {
        DLManagedTensorVersioned *managed = (DLManagedTensorVersioned *)block;
        managed->version.major = 1;
        managed->version.minor = (uint32_t)minor;
        managed->manager_ctx = owner;
        managed->deleter = release ? dnnl_interop_dlpack_release_deleter_versioned
                                   : dnnl_interop_dlpack_deleter_versioned;
        managed->flags = flags;
        managed->dl_tensor = model;
        name = "dltensor_versioned";
    } else {
        DLManagedTensor *managed = (DLManagedTensor *)block;
        managed->dl_tensor = model;
        managed->manager_ctx = owner;
        managed->deleter = release ? dnnl_interop_dlpack_release_deleter : dnnl_interop_dlpack_deleter;
        name = "dltensor";
    }
    PyObject *capsule = PyCapsule_New(block, name, dnnl_interop_dlpack_capsule_destructor);
    if (capsule == NULL) {
        free(block);
        goto fail;
    }
    return capsule;
fail:
    if (release) { /* the use of the memory's handle ends here */
        PyObject *type, *value, *traceback;
        PyErr_Fetch(&type, &value, &traceback);
        PyObject *result = PyObject_CallMethod(
            PyTuple_GetItem(owner, 0), "_release", "(O)", PyTuple_GetItem(owner, 1));
        Py_DecRef(result);
        PyErr_Restore(type, value, traceback);
    }
    Py_DecRef(owner);
    return NULL;
}

/* export(template, data, owner, flags, minor): a capsule over a copy. template:
 * the bytes of a DLTensor (data, shape and strides left out), followed by its
 * shape and strides (int64 each); data: its address; owner: what keeps the
 * data valid (a reference, dropped by the deleter); flags: the versioned
 * struct's; minor: the DLPack 1.x minor version of a versioned capsule, or -1
 * for a legacy "dltensor" one. */
static PyObject *dnnl_interop_dlpack_export(PyObject *self, PyObject *args) {
    PyObject *template_, *data, *owner, *flags_object, *minor_object;
    (void)self;
    if (!PyArg_UnpackTuple(args, "export", 5, 5, &template_, &data, &owner, &flags_object, &minor_object))
        return NULL;
    void *address = PyLong_AsVoidPtr(data);
    unsigned long long flags = PyLong_AsUnsignedLongLong(flags_object);
    long minor = PyLong_AsLong(minor_object);
    if (PyErr_Occurred())
        return NULL;
    Py_IncRef(owner);
    return dnnl_interop_dlpack_capsule(template_, address, owner, flags, minor, 0);
}

static unsigned long long dnnl_interop_dlpack_uses = 0; /* with the GIL held */

/* export_memory(template, memory, handle, address, flags, minor): a capsule over
 * a memory's own buffer. handle: the memory's _handle (a cffi pointer) and
 * address its value. A use of the handle is registered first (("view", "dlpack",
 * n) added to memory._views, as a numpy view's key), then the handle is checked
 * to still be the memory's, then its data handle read: the use keeps it valid
 * until the consumer's deleter ends it. Returns None for a closed memory, and
 * (for a buffer of no address) the int 0. */
static PyObject *dnnl_interop_dlpack_export_memory(PyObject *self, PyObject *args) {
    PyObject *template_, *memory, *handle, *address_object, *flags_object, *minor_object;
    (void)self;
    if (!PyArg_UnpackTuple(args, "export_memory", 6, 6, &template_, &memory, &handle, &address_object,
                           &flags_object, &minor_object))
        return NULL;
    void *c_memory = PyLong_AsVoidPtr(address_object);
    unsigned long long flags = PyLong_AsUnsignedLongLong(flags_object);
    long minor = PyLong_AsLong(minor_object);
    if (PyErr_Occurred())
        return NULL;
    PyObject *users = PyObject_GetAttrString(memory, "_views");
    if (users == NULL)
        return NULL;
    PyObject *key = Py_BuildValue("(ssK)", "view", "dlpack", ++dnnl_interop_dlpack_uses);
    PyObject *owner = key != NULL ? PyTuple_New(2) : NULL;
    if (owner == NULL || PySet_Add(users, key) < 0) {
        Py_DecRef(users);
        Py_DecRef(key);
        Py_DecRef(owner);
        return NULL;
    }
    Py_DecRef(users);
    Py_IncRef(memory);
    PyTuple_SetItem(owner, 0, memory);
    PyTuple_SetItem(owner, 1, key); /* owner holds memory and key from here on */
    PyObject *current = PyObject_GetAttrString(memory, "_handle");
    int same = current == handle;
    Py_DecRef(current);
    void *data = NULL;
    if (same && dnnl_memory_get_data_handle((dnnl_memory_t)c_memory, &data) != dnnl_success)
        same = 0;
    if (!same || data == NULL) {
        PyObject *result = PyObject_CallMethod(memory, "_release", "(O)", key);
        Py_DecRef(result);
        Py_DecRef(owner);
        if (PyErr_Occurred())
            return NULL;
        if (!same)
            Py_RETURN_NONE;
        return PyLong_FromLong(0);
    }
    return dnnl_interop_dlpack_capsule(template_, data, owner, flags, minor, 1);
}

/* take(capsule): None if it is no unused DLPack capsule; otherwise renamed
 * "used_dltensor[_versioned]" (the consumer owns the tensor from then on) and
 * (address of the managed struct, versioned, major, flags, data + byte_offset,
 * device_type, device_id, code, bits, lanes, shape, strides or None). A
 * versioned tensor of another major version gives (address, 1, major) only:
 * nothing else of it can be read. A tensor with no shape for its dimensions
 * raises BufferError, untaken. */
static PyObject *dnnl_interop_dlpack_take(PyObject *self, PyObject *capsule) {
    (void)self;
    int versioned;
    void *managed;
    DLTensor *tensor;
    unsigned long long flags = 0;
    unsigned int major = 0;
    if (PyCapsule_IsValid(capsule, "dltensor_versioned")) {
        DLManagedTensorVersioned *v = PyCapsule_GetPointer(capsule, "dltensor_versioned");
        versioned = 1, managed = v, tensor = &v->dl_tensor, flags = v->flags, major = v->version.major;
    } else if (PyCapsule_IsValid(capsule, "dltensor")) {
        DLManagedTensor *m = PyCapsule_GetPointer(capsule, "dltensor");
        versioned = 0, managed = m, tensor = &m->dl_tensor;
    } else {
        Py_RETURN_NONE;
    }
    if (versioned && major != 1) {
        if (PyCapsule_SetName(capsule, "used_dltensor_versioned") < 0)
            return NULL;
        return Py_BuildValue("(KiI)", (unsigned long long)(uintptr_t)managed, versioned, major);
    }
    int ndim = tensor->ndim;
    if (ndim < 0 || (ndim > 0 && tensor->shape == NULL)) {
        PyErr_SetString(PyExc_BufferError, "the DLPack tensor has no shape for its dimensions");
        return NULL;
    }
    PyObject *shape = PyTuple_New(ndim);
    PyObject *strides = tensor->strides != NULL ? PyTuple_New(ndim) : (Py_IncRef(Py_None), Py_None);
    if (shape == NULL || strides == NULL)
        goto fail;
    for (int i = 0; i < ndim; i++) {
        PyObject *item = PyLong_FromLongLong(tensor->shape[i]);
        if (item == NULL || PyTuple_SetItem(shape, i, item) < 0)
            goto fail;
        if (tensor->strides != NULL) {
            item = PyLong_FromLongLong(tensor->strides[i]);
            if (item == NULL || PyTuple_SetItem(strides, i, item) < 0)
                goto fail;
        }
    }
    if (PyCapsule_SetName(capsule, versioned ? "used_dltensor_versioned" : "used_dltensor") < 0)
        goto fail;
    return Py_BuildValue(
        "(KiIKKiiiiiNN)", (unsigned long long)(uintptr_t)managed, versioned, major, flags,
        (unsigned long long)((uintptr_t)tensor->data + tensor->byte_offset),
        (int)tensor->device.device_type, (int)tensor->device.device_id,
        (int)tensor->dtype.code, (int)tensor->dtype.bits, (int)tensor->dtype.lanes, shape, strides);
fail:
    Py_DecRef(shape);
    Py_DecRef(strides);
    return NULL;
}

static PyMethodDef dnnl_interop_dlpack_methods[] = {
    {"export", dnnl_interop_dlpack_export, METH_VARARGS,
     "A DLPack capsule over a copy (see dnnl_interop/csrc/dlpack.c)."},
    {"export_memory", dnnl_interop_dlpack_export_memory, METH_VARARGS,
     "A DLPack capsule over a memory's buffer (see dnnl_interop/csrc/dlpack.c)."},
    {"take", dnnl_interop_dlpack_take, METH_O,
     "Take a DLPack capsule as its consumer (see dnnl_interop/csrc/dlpack.c)."},
    {NULL, NULL, 0, NULL},
};

/* Put export and take into the dict at address namespace: 0, or -1 (error cleared). */
static int dnnl_interop_dlpack_install(uintptr_t namespace) {
    PyGILState_STATE gil = PyGILState_Ensure(); /* cffi calls C without the GIL */
    int status = 0;
    for (PyMethodDef *method = dnnl_interop_dlpack_methods; method->ml_name != NULL; method++) {
        PyObject *function = PyCFunction_NewEx(method, NULL, NULL);
        if (function == NULL || PyDict_SetItemString((PyObject *)namespace, method->ml_name, function) < 0) {
            PyErr_Clear();
            status = -1;
        }
        Py_DecRef(function);
    }
    PyGILState_Release(gil);
    return status;
}
