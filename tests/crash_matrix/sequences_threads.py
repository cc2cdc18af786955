"""Misuse sequences with threads: concurrent close, close during use, GC, sharing.

Each case bounds its own duration (a few seconds at most) and starts its
threads with the ``run_threads`` fixture, which collects what they raise: a
thread may meet a clean ClosedObjectError (or another ValueError or
RuntimeError saying the object is closed or busy), never anything else, and
the process must not die or hang. Threads switch as often as the interpreter
allows, so that races show within the few repetitions a case makes.
"""

from __future__ import annotations

from .model import Case, Ok

# What a fresh object of each kind is made from, on the CPU engine (eng, md).
MAKE_CPU = {
    "Primitive": "dnnl.reorder(md, md_t, eng)",
    "Stream": "dnnl.Stream(eng)",
    "MemoryDesc": 'dnnl.MemoryDesc((4, 4), "float32", "ab")',
    "Memory": "dnnl.Memory(md, eng, np.zeros((4, 4), np.float32))",
    "Engine": "dnnl.Engine.cpu()",
}
MAKE_GPU = {
    "Primitive": "dnnl.reorder(md, md_t, geng)",
    "Stream": "ocl.make_stream(geng, gqueue)",
    "Memory": "ocl.make_memory(md, geng)",
    "Engine": "ocl.make_engine(gdev, gctx)",
}


def _case(name: str, section: str, body: str, library: str, timeout: float = 30.0) -> Case:
    return Case(name, section, body, Ok(), library=library, timeout=timeout)


def _eight_closers(kind: str, make: str, section: str, library: str, prefix: str = "") -> Case:
    body = f'''
for _ in range(25):
    target = {make}
    barrier = threading.Barrier(8)
    def close():
        barrier.wait()
        target.close()
    join_threads(run_threads([close] * 8))
    assert target.closed
'''
    return _case(f"{prefix}8 threads close one {kind} at once", section, body, library)


def _close_while_executing(victim: str, section: str, library: str, execute: str, wait: str,
                           setup: str = "") -> Case:
    body = f'''{setup}
stop = threading.Event()
def work():
    while not stop.is_set():
        {execute}
        {wait}
threads = run_threads([work] * 4)
time.sleep(0.2)
{victim}.close()
time.sleep(0.2)
stop.set()
join_threads(threads)
'''
    return _case(f"close the {victim} while 4 threads execute with it", section, body, library)


def cpu_cases() -> list[Case]:
    section, library = "threads/cpu", "real"
    execute = "prim.execute(strm, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})"
    cases = [_eight_closers(kind, make, section, library) for kind, make in MAKE_CPU.items()]
    for victim in ("src", "dst", "strm", "prim", "eng", "md"):
        cases.append(_close_while_executing(victim, section, library, execute, "strm.wait()"))
    cases += [
        _case("create streams while another thread closes their engine", section, '''
for _ in range(10):
    e = dnnl.Engine.cpu()
    barrier = threading.Barrier(5)
    def make_streams():
        barrier.wait()
        for _ in range(20):
            dnnl.Stream(e).wait()
    def close_engine():
        barrier.wait()
        time.sleep(0.001)
        e.close()
    join_threads(run_threads([make_streams] * 4 + [close_engine]))
''', library),
        _case("garbage collection in another thread during execute", section, '''
stop = threading.Event()
def collect():
    while not stop.is_set():
        gc.collect()
collector = run_threads([collect])
results = [reorder_big(eng, strm) for _ in range(3)]
strm.wait()
stop.set()
join_threads(collector)
assert all(np.array_equal(r, big.T) for r in results), "a transpose is wrong"
''', library),
        _case("garbage collection in another thread while objects in cycles die", section, '''
stop = threading.Event()
def collect():
    while not stop.is_set():
        gc.collect()
collector = run_threads([collect])
for _ in range(40):
    e = dnnl.Engine.cpu(); s = dnnl.Stream(e)
    m = dnnl.Memory(md, e, np.zeros((4, 4), np.float32))
    cycle = [e, s, m]; cycle.append(cycle)
    dnnl.reorder(md, md_t, e).execute(s, {dnnl.ARG_FROM: m, dnnl.ARG_TO: dnnl.Memory(md_t, e)})
    del e, s, m, cycle
stop.set()
join_threads(collector)
''', library),
    ]
    for victim in ("strm", "p", "s", "d"):
        cases.append(_case(f"close the {victim} while another thread waits on work in flight", section, f'''
x = big.copy(); result = np.zeros_like(x)
s = dnnl.Memory(big_md, eng, x); d = dnnl.Memory(big_md_t, eng, result.T)
p = dnnl.reorder(big_md, big_md_t, eng)
p.execute(strm, {{dnnl.ARG_FROM: s, dnnl.ARG_TO: d}})
waiter = run_threads([strm.wait])
{victim}.close()
join_threads(waiter)
strm.wait() if not strm.closed else None
assert np.array_equal(result, big.T), "the transpose is wrong"
''', library))
    cases += [
        _case("8 threads share one engine for 2 s: make, execute, wait, close", section, '''
deadline = time.monotonic() + 2.0
def worker():
    n = 0
    while time.monotonic() < deadline:
        x = np.random.rand(8, 16).astype(np.float32); y = np.zeros((16, 8), np.float32)
        d1 = dnnl.MemoryDesc((8, 16), "float32", "ab"); d2 = dnnl.MemoryDesc((8, 16), "float32", "ba")
        with dnnl.Stream(eng) as s, dnnl.reorder(d1, d2, eng) as p:
            p.execute(s, {dnnl.ARG_FROM: dnnl.Memory(d1, eng, x), dnnl.ARG_TO: dnnl.Memory(d2, eng, y)})
            s.wait()
        assert np.array_equal(y, x.T), "a transpose is wrong"
        n += 1
    assert n > 0
join_threads(run_threads([worker] * 8))
''', library),
        _case("8 threads execute on one shared stream", section, '''
deadline = time.monotonic() + 1.5
def worker():
    while time.monotonic() < deadline:
        x = np.random.rand(4, 4).astype(np.float32); y = np.zeros((4, 4), np.float32)
        prim.execute(strm, {dnnl.ARG_FROM: dnnl.Memory(md, eng, x), dnnl.ARG_TO: dnnl.Memory(md_t, eng, y.T)})
        strm.wait()
        assert np.array_equal(y, x.T), "a transpose is wrong"
join_threads(run_threads([worker] * 8))
''', library),
        _case("set_data_handle from one thread while others execute", section, '''
stop = threading.Event()
def work():
    while not stop.is_set():
        prim.execute(strm, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst}); strm.wait()
threads = run_threads([work] * 3)
for _ in range(200):
    dst.set_data_handle(np.zeros((4, 4), np.float32).T)
stop.set()
join_threads(threads)
''', library),
        _case("8 threads make their first oneDNN call at once", "threads/loader", '''
barrier = threading.Barrier(8)
def first_call():
    barrier.wait()
    dnnl.MemoryDesc((2, 2), "float32", "ab").size
join_threads(run_threads([first_call] * 8))
''', "none"),
        _case("8 threads ask for the version first, at once", "threads/loader", '''
barrier = threading.Barrier(8)
def first_call():
    barrier.wait()
    assert dnnl.version().major == 3
join_threads(run_threads([first_call] * 8))
''', "none"),
        _case("fork while another thread loads the library", "threads/loader", '''
loading = run_threads([dnnl.load_library])
time.sleep(0.01)
done, status = fork_and_wait(lambda: dnnl.MemoryDesc((2, 2), "float32", "ab").size)
join_threads(loading)
assert done, "the forked child hung on the loader"
assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, f"the forked child failed: {status}"
''', "none"),
        _case("fork after loading: the child uses the binding", "threads/loader", '''
dnnl.MemoryDesc((2, 2), "float32", "ab").size
done, status = fork_and_wait(lambda: dnnl.MemoryDesc((3, 3), "float32", "ab").size)
assert done, "the forked child hung"
assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, f"the forked child failed: {status}"
''', "none"),
    ]
    return cases


def gpu_cases() -> list[Case]:
    section, library = "threads/gpu", "emulated"
    execute = "gprim.execute(gstrm, {dnnl.ARG_FROM: gsrc, dnnl.ARG_TO: gdst})"
    cases = [_eight_closers(kind, make, section, library, "ocl: ") for kind, make in MAKE_GPU.items()]
    for victim in ("gsrc", "gstrm", "geng"):
        cases.append(_close_while_executing(victim, section, library, execute, "gstrm.wait()"))
    cases.append(_case("ocl: 4 threads share one engine for 2 s", section, '''
deadline = time.monotonic() + 2.0
def worker():
    q = cl.CommandQueue(gctx)
    with ocl.make_stream(geng, q) as s:
        while time.monotonic() < deadline:
            m = ocl.make_memory(md_t, geng)
            gprim.execute(s, {dnnl.ARG_FROM: gsrc, dnnl.ARG_TO: m})
            s.wait()
            assert np.array_equal(read_gpu(m), a.T), "a transpose is wrong"
join_threads(run_threads([worker] * 4))
''', library, timeout=40.0))
    return cases


def cases() -> list[Case]:
    return cpu_cases() + gpu_cases()
