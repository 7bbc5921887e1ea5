"""Each thread has its own callback; the callback's own frames run unhooked for its thread only."""

from __future__ import annotations

import gc
import sys
import threading

import loom_framehook as fh


def work(n):
    return n + 1


def work_replacement(n):
    return -n


def test_each_thread_has_its_own_callback():
    results = {}
    barrier = threading.Barrier(2)

    def body(name, hooked):
        seen = []

        def cb(frame):
            if frame.f_code is work.__code__:
                seen.append(name)
            return None

        if hooked:
            fh.set_callback(cb)
        barrier.wait()
        for i in range(100):
            work(i)
        if hooked:
            fh.set_callback(None)
        results[name] = (len(seen), fh.get_callback())

    threads = [threading.Thread(target=body, args=(f"t{i}", i == 0)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {"t0": (100, None), "t1": (0, None)}
    assert fh.get_callback() is None
    assert not fh.is_installed()


def test_eight_threads_get_exact_counts():
    n_threads, n_calls = 8, 400
    counts = [0] * n_threads
    replaced = [0] * n_threads
    barrier = threading.Barrier(n_threads)
    errors = []

    def body(k):
        try:
            def cb(frame):
                if frame.f_code is work.__code__:
                    counts[k] += 1
                    if frame.f_locals["n"] % 2:  # odd arguments: a one-time replacement
                        return work_replacement.__code__
                    return None
                return fh.SKIP

            with fh.callback(cb):
                barrier.wait()
                for i in range(n_calls):
                    result = work(i)
                    expected = -i if i % 2 else i + 1
                    if result != expected:
                        errors.append((k, i, result))
                replaced[k] = sum(1 for i in range(n_calls) if i % 2)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=body, args=(k,)) for k in range(n_threads)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old_interval)
    assert errors == []
    assert counts == [n_calls] * n_threads
    assert fh.stats()["replaced"] == n_threads * n_calls // 2
    assert not fh.is_installed()


def test_callback_frames_unhooked_only_for_that_thread():
    """While thread A runs its (slow) callback, thread B's frames still reach B's callback."""
    a_in_callback = threading.Event()
    b_done = threading.Event()
    a_seen, b_seen = [], []

    def helper():
        return 1

    def a_cb(frame):
        if frame.f_code is work.__code__:
            helper()  # runs unhooked: never reported to a_cb
            a_in_callback.set()
            b_done.wait(10)
        a_seen.append(frame.f_code.co_name)
        return None

    def b_cb(frame):
        b_seen.append(frame.f_code.co_name)
        return None

    def thread_a():
        with fh.callback(a_cb):
            work(1)

    def thread_b():
        a_in_callback.wait(10)
        with fh.callback(b_cb):
            helper()
            work(2)
        b_done.set()

    ta, tb = threading.Thread(target=thread_a), threading.Thread(target=thread_b)
    ta.start()
    tb.start()
    ta.join()
    tb.join()
    assert "helper" not in a_seen and "work" in a_seen
    assert b_seen.count("helper") == 1 and b_seen.count("work") == 1


def test_thread_exiting_with_callback_set_releases_it():
    class Callback:
        def __call__(self, frame):
            return None

    cb = Callback()
    before = sys.getrefcount(cb)

    def body():
        fh.set_callback(cb)
        work(1)
        assert fh.is_installed()
        # exits with the callback still set

    t = threading.Thread(target=body)
    t.start()
    t.join()
    gc.collect()
    assert sys.getrefcount(cb) == before
    assert not fh.is_installed()
    assert fh.stats()["threads"] == 0


def test_thread_exit_keeps_hook_for_other_threads():
    seen = []

    def cb(frame):
        if frame.f_code is work.__code__:
            seen.append(1)
        return None

    fh.set_callback(cb)
    t = threading.Thread(target=lambda: fh.set_callback(lambda frame: None))
    t.start()
    t.join()
    assert fh.is_installed()
    work(1)
    assert seen == [1]
    fh.set_callback(None)
    assert not fh.is_installed()


def test_thread_without_callback_runs_original_even_with_entries():
    def cb(frame):
        if frame.f_code is work.__code__:
            return fh.Entry(work_replacement.__code__, lambda frame: True)
        return fh.SKIP

    with fh.callback(cb):
        assert work(5) == -5
        out = []
        t = threading.Thread(target=lambda: out.append(work(5)))
        t.start()
        t.join()
        assert out == [6]
        assert work(5) == -5


def test_subinterpreter_is_refused(tmp_path):
    testcapi = __import__("pytest").importorskip("_testcapi")
    out = tmp_path / "out.txt"
    code = (
        "import loom_framehook as fh\n"
        "try:\n"
        "    fh.set_callback(lambda frame: None)\n"
        "    result = 'accepted'\n"
        "except RuntimeError as exc:\n"
        "    result = str(exc)\n"
        "except ImportError as exc:\n"
        "    result = 'import refused: ' + str(exc)\n"
        f"open({str(out)!r}, 'w').write(result)\n"
    )
    assert testcapi.run_in_subinterp(code) == 0
    result = out.read_text()
    assert result == "loom_framehook works in the main interpreter only" or result.startswith("import refused")
    assert not fh.is_installed()
