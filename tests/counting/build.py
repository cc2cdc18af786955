"""Generate and compile the test-only counting library (see README.md).

``build_counting(out_dir)`` writes ``out_dir/libdnnl_counting.so`` and returns
its path. The C is generated from the binding's own parsed declarations
(``dnnl_interop/_cdef.py``, loaded by path as ``build_ffi.py`` does): one
wrapper per oneDNN function, with the prototype of ``headers/`` (included, so
the compiler checks every signature), forwarding to the real libdnnl. A build
whose inputs (generated source, headers, compiler command) are unchanged is
reused: a stamp file beside the library records their hash.

What a function is follows from its declaration alone:

* first parameter a pointer to a handle type: a *create* function;
* name ``*_destroy`` with one handle parameter: a *destroy* function;
* ``dnnl_primitive_execute`` and its OpenCL / Level Zero twins: *execute*
  (their ``args`` memories are checked and recorded as in flight);
* ``dnnl_stream_wait``: ends what was in flight on the stream when it began;
* every other parameter of a handle type: a *use*, checked to be live.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import sys
from pathlib import Path

from compile_library import compile_replacing

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
HEADERS = ROOT / "headers"
LIBRARY_NAME = "libdnnl_counting.so"
INCLUDES = ("dnnl.h", "dnnl_ocl.h", "dnnl_ze.h", "dnnl_sycl.h")

# Handle kinds, in the order of the C enum and of the query functions.
KINDS = ("engine", "stream", "memory", "primitive", "primitive_desc", "memory_desc")
HANDLE_TYPES = {}
for _kind in KINDS:
    HANDLE_TYPES[f"dnnl_{_kind}_t"] = _kind
    HANDLE_TYPES[f"const_dnnl_{_kind}_t"] = _kind
EXECUTE_FUNCTIONS = (
    "dnnl_primitive_execute",
    "dnnl_ocl_interop_primitive_execute",
    "dnnl_ze_interop_primitive_execute",
    "dnnl_sycl_interop_primitive_execute",
)
WAIT_FUNCTION = "dnnl_stream_wait"

CFLAGS = (
    "-std=gnu11",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-fPIC",
    "-shared",
    "-O1",
    "-fvisibility=hidden",  # only the oneDNN functions and counting_* are exported
)
LIBS = ("-lpthread", "-ldl")


def _load_cdef():
    spec = importlib.util.spec_from_file_location(
        "counting_build_cdef", ROOT / "dnnl_interop" / "_cdef.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _param_type(declaration: str, name: str) -> str:
    """``"const_dnnl_memory_t memory"`` -> ``"const_dnnl_memory_t"`` (spacing normalised)."""
    text = declaration.strip()
    if name and text.endswith(name):
        text = text[: -len(name)]
    return " ".join(text.replace("*", " * ").split())


def _handle_kind(type_text: str) -> str | None:
    return HANDLE_TYPES.get(type_text)


def _out_handle_kind(type_text: str) -> str | None:
    """The kind of a ``dnnl_X_t *`` (a handle written by the callee)."""
    parts = type_text.split()
    if len(parts) == 2 and parts[1] == "*":
        return HANDLE_TYPES.get(parts[0])
    return None


def _kind_constant(kind: str) -> str:
    return f"KIND_{kind.upper()}"


RUNTIME = r"""
#define _GNU_SOURCE
#define DNNL_API __attribute__((visibility("default")))
#define COUNTING_API __attribute__((visibility("default")))

#include <dlfcn.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

@INCLUDES@

#define TARGET_ENV "DNNL_INTEROP_COUNTING_TARGET"
#define REPORT_ENV "DNNL_INTEROP_COUNTING_REPORT"
#define KEPT_VIOLATIONS 256
#define VIOLATION_TEXT 240

enum { @KIND_ENUM@, KIND_COUNT };
static const char *const kind_names[KIND_COUNT] = { @KIND_NAMES@ };

/* A live handle: its kind, for a stream its engine, and how many forwarded
 * calls are using it right now. */
typedef struct {
    const void *handle;
    int kind;
    const void *engine;
    int busy;
    const char *busy_in;  /* the function of the latest call that made it busy */
} record_t;

/* Something submitted work on `stream` uses, stamped with the submission. */
typedef struct {
    const void *stream;
    const void *object;
    uint64_t stamp;
} flight_t;

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static record_t *live;
static size_t live_count, live_capacity;
static flight_t *flights;
static size_t flight_count, flight_capacity;
static uint64_t stamps;
/* Memory descriptors a getter or query returned: owned by another handle,
 * valid while it lives, never destroyed by the caller. */
typedef struct {
    const void *handle;
    const void *owner;
} borrow_t;
static borrow_t *borrows;
static size_t borrow_count, borrow_capacity;
static long long created[KIND_COUNT], destroyed[KIND_COUNT];
static long long violation_count;
static char violations[KEPT_VIOLATIONS][VIOLATION_TEXT];

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void *target;
static char target_error[VIOLATION_TEXT];
static const char *report_path;

static void open_target(void) {
    report_path = getenv(REPORT_ENV);
    const char *path = getenv(TARGET_ENV);
    if (!path || !*path) {
        snprintf(target_error, sizeof target_error, "%s is not set", TARGET_ENV);
        return;
    }
    /* The test process has bound the real library first, so this finds that
     * copy (and its dependencies) already loaded. */
    target = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!target) snprintf(target_error, sizeof target_error, "%s", dlerror());
}

static void append_report(const char *line) {
    if (!report_path) return;
    int fd = open(report_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return;
    size_t length = strlen(line);
    ssize_t written = write(fd, line, length);
    (void)written;
    close(fd);
}

/* Record a violation. Holds the mutex. Written to the report at once, so a
 * crash that follows cannot lose it. */
__attribute__((format(printf, 1, 2)))
static void violation(const char *format, ...) {
    char text[VIOLATION_TEXT];
    va_list ap;
    va_start(ap, format);
    vsnprintf(text, sizeof text, format, ap);
    va_end(ap);
    if (violation_count < KEPT_VIOLATIONS)
        memcpy(violations[violation_count], text, sizeof text);
    violation_count++;
    char line[VIOLATION_TEXT + 16];
    snprintf(line, sizeof line, "violation %s\n", text);
    append_report(line);
}

static record_t *find(const void *handle) {
    for (size_t i = 0; i < live_count; i++)
        if (live[i].handle == handle) return &live[i];
    return NULL;
}

/* `items` with room for one more (of `size` bytes each) than `count`. */
static void *grow(void *items, size_t *capacity, size_t count, size_t size) {
    if (count < *capacity) return items;
    size_t wanted = *capacity ? 2 * *capacity : 64;
    void *more = realloc(items, wanted * size);
    if (!more) abort();
    *capacity = wanted;
    return more;
}

static void add_live(const char *function, int kind, const void *handle, const void *engine) {
    if (find(handle)) {
        violation("handle created twice: %s returned %s %p, which is already live",
                  function, kind_names[kind], handle);
        return;
    }
    live = grow(live, &live_capacity, live_count, sizeof *live);
    live[live_count++] = (record_t){handle, kind, engine, 0, NULL};
}

static void remove_live(record_t *record) {
    *record = live[--live_count];
}

static int is_borrowed(const void *handle) {
    for (size_t i = 0; i < borrow_count; i++)
        if (borrows[i].handle == handle) return 1;
    return 0;
}

static void forget_borrows_of(const void *owner) {
    size_t kept = 0;
    for (size_t i = 0; i < borrow_count; i++)
        if (borrows[i].owner != owner) borrows[kept++] = borrows[i];
    borrow_count = kept;
}

static void counting_borrowed(const void *handle, const void *owner) {
    if (!handle) return;
    pthread_mutex_lock(&mutex);
    if (!is_borrowed(handle)) {
        borrows = grow(borrows, &borrow_capacity, borrow_count, sizeof *borrows);
        borrows[borrow_count++] = (borrow_t){handle, owner};
    }
    pthread_mutex_unlock(&mutex);
}

static int in_flight_anywhere(const void *object) {
    for (size_t i = 0; i < flight_count; i++)
        if (flights[i].object == object) return 1;
    return 0;
}

static size_t in_flight_on(const void *stream) {
    size_t n = 0;
    for (size_t i = 0; i < flight_count; i++)
        if (flights[i].stream == stream) n++;
    return n;
}

static void forget_flights(const void *stream, uint64_t up_to) {
    size_t kept = 0;
    for (size_t i = 0; i < flight_count; i++)
        if (flights[i].stream != stream || flights[i].stamp > up_to) flights[kept++] = flights[i];
    flight_count = kept;
}

static void add_flight(const void *stream, const void *object, uint64_t stamp) {
    for (size_t i = 0; i < flight_count; i++)
        if (flights[i].stream == stream && flights[i].object == object) {
            flights[i].stamp = stamp;
            return;
        }
    flights = grow(flights, &flight_capacity, flight_count, sizeof *flights);
    flights[flight_count++] = (flight_t){stream, object, stamp};
}

/* The real function, or NULL (recorded as a violation: the test setup is wrong). */
static void *counting_forward_to(const char *name, _Atomic(void *) *slot) {
    void *fn = atomic_load_explicit(slot, memory_order_acquire);
    if (fn) return fn;
    pthread_once(&once, open_target);
    if (target) fn = dlsym(target, name);
    if (!fn) {
        pthread_mutex_lock(&mutex);
        violation("cannot forward %s: %s", name, target ? "the target lacks it" : target_error);
        pthread_mutex_unlock(&mutex);
        return NULL;
    }
    atomic_store_explicit(slot, fn, memory_order_release);
    return fn;
}

/* Before forwarding a call: every handle it is given must be live and of its
 * kind; then each is marked busy until counting_after_call. Returns 0 (and records
 * "use after destroy") if one is not: the call must not be forwarded. */
typedef struct {
    int n;
    const void *handles[16];
    int kinds[16];
    const char *names[16];
} counting_uses_t;

static void counting_use(counting_uses_t *uses, const void *handle, int kind, const char *name) {
    if (!handle || uses->n == 16) return;
    uses->handles[uses->n] = handle;
    uses->kinds[uses->n] = kind;
    uses->names[uses->n] = name;
    uses->n++;
}

static void busy(record_t *record, const char *function) {
    record->busy++;
    record->busy_in = function;
}

static int counting_before_call(
    const char *function, const counting_uses_t *uses, int nargs, const dnnl_exec_arg_t *args) {
    int ok = 1;
    pthread_mutex_lock(&mutex);
    for (int i = 0; i < uses->n; i++) {
        record_t *record = find(uses->handles[i]);
        if (!record && uses->kinds[i] == KIND_MEMORY_DESC && is_borrowed(uses->handles[i])) continue;
        if (!record || record->kind != uses->kinds[i]) {
            violation("use after destroy: %s(%s = %s %p), a handle that is not live",
                      function, uses->names[i], kind_names[uses->kinds[i]], uses->handles[i]);
            ok = 0;
        }
    }
    for (int i = 0; args && i < nargs; i++) {
        record_t *record = args[i].memory ? find(args[i].memory) : NULL;
        if (args[i].memory && (!record || record->kind != KIND_MEMORY)) {
            violation("use after destroy: %s(args[%d].memory = memory %p), a handle that is not live",
                      function, i, (const void *)args[i].memory);
            ok = 0;
        }
    }
    if (ok) {
        for (int i = 0; i < uses->n; i++)
            if (find(uses->handles[i])) busy(find(uses->handles[i]), function);
        for (int i = 0; args && i < nargs; i++)
            if (args[i].memory) busy(find(args[i].memory), function);
    }
    pthread_mutex_unlock(&mutex);
    return ok;
}

static void unbusy(const void *handle) {
    record_t *record = find(handle);
    if (record && record->busy > 0) record->busy--;
}

/* After a forwarded call. For a successful execute, `stream` is its stream:
 * the primitive and the memories become in flight there, in the same step
 * that ends the call's use of them, so no destroy can slip in between. */
static void counting_after_call(const counting_uses_t *uses, int nargs, const dnnl_exec_arg_t *args,
                       const void *stream, const void *primitive) {
    pthread_mutex_lock(&mutex);
    for (int i = 0; i < uses->n; i++) unbusy(uses->handles[i]);
    for (int i = 0; args && i < nargs; i++)
        if (args[i].memory) unbusy(args[i].memory);
    if (stream) {
        uint64_t stamp = ++stamps;
        add_flight(stream, primitive, stamp);
        for (int i = 0; args && i < nargs; i++)
            if (args[i].memory) add_flight(stream, args[i].memory, stamp);
    }
    pthread_mutex_unlock(&mutex);
}

static void counting_created_handle(const char *function, int kind, const void *handle, const void *engine) {
    if (!handle) return;
    pthread_mutex_lock(&mutex);
    created[kind]++;
    add_live(function, kind, handle, engine);
    pthread_mutex_unlock(&mutex);
}

/* Check a destroy and take the handle out of the live set before forwarding
 * (so an address the library reuses at once is not mistaken for this one).
 * Returns 0 if the handle is not live: it must not be forwarded. */
static int counting_before_destroy(const char *function, int kind, const void *handle) {
    if (!handle) return 1;  /* oneDNN's own answer to NULL is checked by the binding's tests */
    pthread_mutex_lock(&mutex);
    record_t *record = find(handle);
    if (!record && is_borrowed(handle)) {
        violation("destroy of a borrowed handle: %s(%s %p), which its owner destroys", function,
                  kind_names[kind], handle);
        pthread_mutex_unlock(&mutex);
        return 0;
    }
    if (!record || record->kind != kind) {
        violation("double destroy: %s(%s %p), a handle that is not live", function, kind_names[kind], handle);
        pthread_mutex_unlock(&mutex);
        return 0;
    }
    if (kind == KIND_ENGINE)
        for (size_t i = 0; i < live_count; i++)
            if (live[i].kind == KIND_STREAM && live[i].engine == handle)
                violation("engine destroyed before its stream: %s(engine %p) while stream %p is live",
                          function, handle, live[i].handle);
    if ((kind == KIND_PRIMITIVE || kind == KIND_MEMORY) && in_flight_anywhere(handle))
        violation("destroyed while in flight: %s(%s %p) used by work submitted and not waited for",
                  function, kind_names[kind], handle);
    if (kind == KIND_STREAM) {
        size_t pending = in_flight_on(handle);
        if (pending)
            violation("stream destroyed before its work was waited: %s(stream %p) with %zu objects in flight",
                      function, handle, pending);
        forget_flights(handle, UINT64_MAX);
    }
    if (record->busy)
        violation("destroyed during a call in progress: %s(%s %p) while %d other call(s) use it (%s)",
                  function, kind_names[kind], handle, record->busy, record->busy_in);
    forget_borrows_of(handle);
    remove_live(record);
    pthread_mutex_unlock(&mutex);
    return 1;
}

static void counting_after_destroy(const char *function, int kind, const void *handle, int succeeded) {
    if (!handle) return;
    pthread_mutex_lock(&mutex);
    if (succeeded)
        destroyed[kind]++;
    else
        add_live(function, kind, handle, NULL);  /* still exists */
    pthread_mutex_unlock(&mutex);
}

static uint64_t counting_wait_begins(void) {
    pthread_mutex_lock(&mutex);
    uint64_t stamp = stamps;
    pthread_mutex_unlock(&mutex);
    return stamp;
}

static void counting_wait_ended(const void *stream, uint64_t stamp) {
    pthread_mutex_lock(&mutex);
    forget_flights(stream, stamp);
    pthread_mutex_unlock(&mutex);
}

/* --- queries for the tests (ctypes) --------------------------------------- */

COUNTING_API int counting_kind_count(void) { return KIND_COUNT; }

COUNTING_API const char *counting_kind_name(int kind) {
    return kind >= 0 && kind < KIND_COUNT ? kind_names[kind] : NULL;
}

static long long locked_read(const long long *value) {
    pthread_mutex_lock(&mutex);
    long long result = *value;
    pthread_mutex_unlock(&mutex);
    return result;
}

COUNTING_API long long counting_created(int kind) {
    return kind >= 0 && kind < KIND_COUNT ? locked_read(&created[kind]) : -1;
}

COUNTING_API long long counting_destroyed(int kind) {
    return kind >= 0 && kind < KIND_COUNT ? locked_read(&destroyed[kind]) : -1;
}

/* Live handles of `kind`; of every kind for -1. */
COUNTING_API long long counting_live(int kind) {
    long long n = 0;
    pthread_mutex_lock(&mutex);
    for (size_t i = 0; i < live_count; i++)
        if (kind < 0 || live[i].kind == kind) n++;
    pthread_mutex_unlock(&mutex);
    return n;
}

COUNTING_API long long counting_in_flight(void) {
    pthread_mutex_lock(&mutex);
    long long n = (long long)flight_count;
    pthread_mutex_unlock(&mutex);
    return n;
}

COUNTING_API long long counting_violation_count(void) { return locked_read(&violation_count); }

/* Copies the text of violation `index` (the first KEPT_VIOLATIONS are kept). */
COUNTING_API int counting_violation(long long index, char *buffer, size_t size) {
    int found = 0;
    pthread_mutex_lock(&mutex);
    if (index >= 0 && index < violation_count && index < KEPT_VIOLATIONS && size) {
        snprintf(buffer, size, "%s", violations[index]);
        found = 1;
    }
    pthread_mutex_unlock(&mutex);
    return found;
}

/* At process exit, after the interpreter has finalized everything it will
 * finalize: the counts, appended to the report file. */
__attribute__((destructor))
static void write_final_report(void) {
    const char *path = report_path ? report_path : getenv(REPORT_ENV);
    if (!path) return;
    report_path = path;
    char line[160];
    pthread_mutex_lock(&mutex);
    for (int kind = 0; kind < KIND_COUNT; kind++) {
        long long n = 0;
        for (size_t i = 0; i < live_count; i++)
            if (live[i].kind == kind) n++;
        snprintf(line, sizeof line, "counts %s %lld %lld %lld\n", kind_names[kind], created[kind],
                 destroyed[kind], n);
        append_report(line);
    }
    snprintf(line, sizeof line, "in_flight %zu\nviolations %lld\nend\n", flight_count, violation_count);
    append_report(line);
    pthread_mutex_unlock(&mutex);
}

/* --- the oneDNN functions ------------------------------------------------- */
"""


LOCAL_PREFIX = "counting_"  # every name the wrappers add; no parameter may start with it
BORROWING_QUERY = "dnnl_primitive_desc_query"  # memory descriptor queries lend one


def _wrapper(function, index: int) -> str:
    name, restype, params = function.name, function.restype, function.params
    types = [_param_type(decl, pname) for decl, pname in params]
    param_names = [pname for _, pname in params]
    clashing = [p for p in param_names if p.startswith(LOCAL_PREFIX)]
    if clashing:
        raise RuntimeError(f"{name}: parameter {clashing[0]} clashes with the wrapper's names")
    decls = ", ".join(decl for decl, _ in params) or "void"
    arg_names = ", ".join(param_names)
    status = restype == "dnnl_status_t"
    void = restype == "void"
    refused = "dnnl_invalid_arguments" if status else f"({restype})0"
    unavailable = "dnnl_runtime_error" if status else f"({restype})0"
    ok = "counting_result == dnnl_success"

    create_kind = _out_handle_kind(types[0]) if params and status else None
    destroy_kind = None
    if name.endswith("_destroy") and len(params) == 1:
        destroy_kind = _handle_kind(types[0])
    is_execute = name in EXECUTE_FUNCTIONS

    lines = [
        f"static _Atomic(void *) counting_slot_{index};",
        f"{restype} {name}({decls}) {{",
        f"    typedef {restype} (*counting_real_t)({decls});",
        (
            f"    counting_real_t counting_real = "
            f'(counting_real_t)counting_forward_to("{name}", &counting_slot_{index});'
        ),
        f"    if (!counting_real) return{'' if void else ' ' + unavailable};",
    ]
    if destroy_kind:
        handle = param_names[0]
        kind = _kind_constant(destroy_kind)
        lines += [
            f'    if (!counting_before_destroy("{name}", {kind}, {handle})) return {refused};',
            f"    {restype} counting_result = counting_real({arg_names});",
            f'    counting_after_destroy("{name}", {kind}, {handle}, {ok});',
            "    return counting_result;",
            "}",
        ]
        return "\n".join(lines)

    engine_param = owner = None
    uses, borrowed = [], []
    for position, (type_text, pname) in enumerate(zip(types, param_names, strict=True)):
        if position == 0 and create_kind:
            continue
        kind = _handle_kind(type_text)
        if kind is not None:
            owner = owner or pname
            if kind == "engine" and engine_param is None:
                engine_param = pname
            uses.append(
                f"    counting_use(&counting_uses, (const void *){pname}, "
                f'{_kind_constant(kind)}, "{pname}");'
            )
        elif _out_handle_kind(type_text) == "memory_desc" and owner:
            # A getter: the descriptor it returns belongs to `owner`.
            borrowed.append((pname, f"*{pname}"))
    if name == BORROWING_QUERY:
        if param_names[:4] != ["primitive_desc", "what", "index", "result"]:
            raise RuntimeError(f"{name}: unexpected parameters {params}")
        borrowed.append(
            (
                "result && what >= dnnl_query_some_md && what <= dnnl_query_exec_arg_md",
                "*(const_dnnl_memory_desc_t *)result",
            )
        )
    nargs, args = ("nargs", "args") if is_execute else ("0", "NULL")
    checked = bool(uses) or is_execute
    if checked:
        lines.append("    counting_uses_t counting_uses = {0};")
        lines += uses
        lines.append(
            f'    if (!counting_before_call("{name}", &counting_uses, {nargs}, {args})) '
            f"return{'' if void else ' ' + refused};"
        )
    if name == WAIT_FUNCTION:
        lines.append("    uint64_t counting_stamp = counting_wait_begins();")
    if void:
        lines.append(f"    counting_real({arg_names});")
    else:
        lines.append(f"    {restype} counting_result = counting_real({arg_names});")
    if is_execute:
        lines.append(
            f"    counting_after_call(&counting_uses, {nargs}, {args}, "
            f"{ok} ? (const void *)stream : NULL, (const void *)primitive);"
        )
    elif checked:
        lines.append("    counting_after_call(&counting_uses, 0, NULL, NULL, NULL);")
    if create_kind:
        out = param_names[0]
        engine = f"(const void *){engine_param}" if create_kind == "stream" and engine_param else "NULL"
        lines.append(
            f"    if ({ok} && {out}) counting_created_handle("
            f'"{name}", {_kind_constant(create_kind)}, (const void *)*{out}, {engine});'
        )
    for condition, value in borrowed:
        lines.append(
            f"    if ({ok} && {condition}) "
            f"counting_borrowed((const void *){value}, (const void *){owner});"
        )
    if name == WAIT_FUNCTION:
        lines.append(f"    if ({ok}) counting_wait_ended((const void *)stream, counting_stamp);")
    if not void:
        lines.append("    return counting_result;")
    lines.append("}")
    return "\n".join(lines)


def generate_source(declarations) -> str:
    """The C source of the counting library for ``declarations``."""
    functions = declarations.functions
    for name in (*EXECUTE_FUNCTIONS, WAIT_FUNCTION):
        if name not in {f.name for f in functions}:
            raise RuntimeError(f"the headers no longer declare {name}")
    for name in EXECUTE_FUNCTIONS:
        (function,) = [f for f in functions if f.name == name]
        if [p for _, p in function.params][:4] != ["primitive", "stream", "nargs", "args"]:
            raise RuntimeError(f"{name}: unexpected parameters {function.params}")
    runtime = (
        RUNTIME.replace("@INCLUDES@", "\n".join(f'#include "{h}"' for h in INCLUDES))
        .replace("@KIND_ENUM@", ", ".join(_kind_constant(k) for k in KINDS))
        .replace("@KIND_NAMES@", ", ".join(f'"{k}"' for k in KINDS))
    )
    header = (
        "/* Generated by tests/counting/build.py from the binding's headers/.\n"
        " * TEST-ONLY: counts oneDNN handles and forwards to the real library. */\n"
    )
    wrappers = [_wrapper(f, i) for i, f in enumerate(functions)]
    return header + runtime + "\n\n".join(wrappers) + "\n"


def _compiler() -> str:
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not compiler:
        raise RuntimeError("no C compiler (cc) found: the counting library needs one")
    return compiler


def build_counting(out_dir: Path) -> Path:
    """Generate and compile into ``out_dir/libdnnl_counting.so``; return its path."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / LIBRARY_NAME
    stamp = out_dir / (LIBRARY_NAME + ".sha256")
    source_path = out_dir / "dnnl_counting.c"

    source = generate_source(_load_cdef().read_headers(HEADERS))
    command = [_compiler(), *CFLAGS, f"-I{HEADERS}", str(source_path), "-o", str(target), *LIBS]

    digest = hashlib.sha256()
    digest.update("\0".join(command).encode())
    digest.update(source.encode())
    for path in sorted(HEADERS.glob("*.h")):
        digest.update(path.read_bytes())
    key = digest.hexdigest()
    if target.exists() and stamp.exists() and stamp.read_text() == key:
        return target

    source_path.write_text(source)
    return compile_replacing(command, target, stamp, key, "the counting library")


if __name__ == "__main__":
    print(build_counting(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "build" / "counting"))
