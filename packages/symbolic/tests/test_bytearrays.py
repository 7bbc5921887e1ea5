"""``bytearray`` made in the trace: built, mutated, indexed, iterated live, compared, decoded, with CPython's
errors, and rebuilt as a real bytearray where it escapes (returned, stored outside, live across a graph
break), one object for every name that held it. A bytearray from the frame: its contents guarded, changed in
a copy and given to the real object after the graph, once."""

import torch
from harness import run_rewritten

from loom_symbolic import translate_function

X = torch.arange(3.0)
STORED = []


def _same_run(fn, *args):
    """Translate ``fn``; return (translation, eager result, loom result, eager STORED, loom STORED)."""
    translation = translate_function(fn, *args)
    STORED.clear()
    eager = fn(*args)
    eager_stored = list(STORED)
    STORED.clear()
    loom = run_rewritten(fn, translation, args, {})
    return translation, eager, loom, eager_stored, list(STORED)


def _assert_same(loom, eager):
    assert type(loom) is type(eager), (loom, eager)
    if isinstance(eager, torch.Tensor):
        assert torch.equal(loom, eager)
    elif isinstance(eager, (tuple, list)):
        assert len(loom) == len(eager)
        for a, b in zip(loom, eager):
            _assert_same(a, b)
    else:
        assert loom == eager


def builds_and_mutates(x):
    b = bytearray(b"ab")
    b.append(99)
    z = bytearray(3)
    z[0] = 1
    z.extend([5, 6])
    z += b"zz"
    z.insert(1, 7)
    del z[2]
    popped = z.pop()
    return x + len(b), b, z, popped, bytes(b), b.decode(), b[0], b[-1], b[1:], 99 in b, 7 in b


def test_a_bytearray_is_built_and_mutated_in_one_graph_with_eager_values():
    translation, eager, loom, _, _ = _same_run(builds_and_mutates, X)
    assert not translation.breaks and len(translation.graphs) == 1, translation.dump()
    _assert_same(loom, eager)


def iterates_live(x):
    b = bytearray([1, 2])
    total = 0
    for c in b:
        total += c
        if c == 1:
            b.append(7)  # reached by the loop, as CPython's iterator reads the live contents
    return x * total, b, list(b), sorted(b), max(b), sum(b), tuple(reversed(b))


def test_iteration_is_live():
    translation, eager, loom, _, _ = _same_run(iterates_live, X)
    assert not translation.breaks, translation.dump()
    _assert_same(loom, eager)
    assert eager[0].tolist() == [0.0, 10.0, 20.0]


def operators(x):
    b = bytearray(b"ab")
    c = bytearray(b"ab")
    return (x, b == c, b is c, b == b"ab", b != b"ac", b < b"b", b + b"c", b * 2, 2 * b, b"x" + b,
            "%s" % b, str(b), repr(b), isinstance(b, bytearray), type(b) is bytearray, bool(bytearray()),
            b.hex(), b.upper(), b.split(b"a"), b.partition(b"a"), int.from_bytes(b, "big"))


def test_operators_and_builtins_answer_as_cpython():
    translation, eager, loom, _, _ = _same_run(operators, X)
    assert not translation.breaks, translation.dump()
    _assert_same(loom, eager)


def raises(x):
    b = bytearray(b"ab")
    messages = []
    for bad in (lambda: b.append(300), lambda: b.append(-1), lambda: b.__setitem__(0, "a"),
                lambda: bytearray().pop(), lambda: b.extend([1, 256]), lambda: hash(b),
                lambda: bytearray("text"), lambda: b[5]):
        try:
            bad()
        except (ValueError, TypeError, IndexError) as e:
            messages.append((type(e).__name__, str(e)))
    return x + 1, messages, b


def test_bad_values_raise_cpythons_errors_and_leave_cpythons_state():
    translation, eager, loom, _, _ = _same_run(raises, X)
    assert not translation.breaks, translation.dump()
    _assert_same(loom, eager)
    assert ("ValueError", "byte must be in range(0, 256)") in eager[1]


def aliased(x):
    b = bytearray(b"q")
    c = b
    STORED.append(b)
    c.append(1)
    return x - 1, b, c


def test_an_escaping_bytearray_is_one_object_for_every_name_with_its_final_contents():
    translation, eager, loom, eager_stored, loom_stored = _same_run(aliased, X)
    assert not translation.breaks, translation.dump()
    _assert_same(loom, eager)
    assert loom[1] is loom[2] is loom_stored[0] and loom_stored == eager_stored == [bytearray(b"q\x01")]


def sized_by_the_tensor(x):
    b = bytearray(x.shape[0])
    b[-1] = 9
    return x + b[-1], b


def test_a_size_read_from_a_tensor_makes_the_bytearray():
    translation, eager, loom, _, _ = _same_run(sized_by_the_tensor, X)
    assert not translation.breaks, translation.dump()
    _assert_same(loom, eager)


def shares_memory(x):
    b = bytearray(b"abc")
    return x + torch.frombuffer(b, dtype=torch.uint8)


def test_what_is_not_modelled_breaks_and_stays_right():
    translation = translate_function(shares_memory, X)
    assert translation.breaks and "bytearray" in str(translation.breaks[0]), translation.dump()
    _assert_same(run_rewritten(shares_memory, translation, (X,), {}), shares_memory(X))


def from_the_frame(b, c, x):
    b.append(3)
    n = len(c)  # the same object under another name: sees the append
    b[0] = 7
    try:
        b.extend([1, 300])
    except ValueError:
        n += 10
    return x + n, b


def test_a_bytearray_from_the_frame_is_changed_once_after_the_graph_and_stays_itself():
    real, eager_real = bytearray(b"q"), bytearray(b"q")
    translation = translate_function(from_the_frame, real, real, X)
    assert not translation.breaks and len(translation.graphs) == 1, translation.dump()
    assert real == bytearray(b"q")  # tracing changed only its copy
    loom = run_rewritten(from_the_frame, translation, (real, real, X), {})
    eager = from_the_frame(eager_real, eager_real, X)
    _assert_same(loom, eager)
    assert loom[1] is real and real == eager_real == bytearray(b"\x07\x03")


def reads_the_first_byte(b, x):
    return x + 1 if b[0] == 1 else x - 1


def test_the_contents_of_a_bytearray_from_the_frame_are_guarded():
    import types

    import loom_guards

    real = bytearray(b"\x01")
    translation = translate_function(reads_the_first_byte, real, X)
    guard = loom_guards.compile(translation.guards)
    frame = types.SimpleNamespace(f_locals={"b": real, "x": X}, f_globals=globals(), closure=None)
    assert guard.why_failed(frame) is None
    real[0] = 2
    assert guard.why_failed(frame) is not None


def cond_branches_append(x):
    b = bytearray(b"a")

    def true_branch(y):
        b.append(1)
        return y + 1

    def false_branch(y):
        b.append(2)
        return y - 1

    return torch.cond(x.sum() > 0, true_branch, false_branch, (x,)), b


def test_a_cond_branch_changing_a_bytearray_of_its_caller_is_refused_like_a_list():
    translation = translate_function(cond_branches_append, X)
    assert translation.breaks and "changes a list, dict, object" in str(translation.breaks[0]), translation.dump()


def test_a_large_bytearray_from_the_frame_stays_opaque_and_right():
    real, eager_real = bytearray(5000), bytearray(5000)
    translation = translate_function(from_the_frame, real, real, X)
    assert translation.breaks, translation.dump()
    _assert_same(run_rewritten(from_the_frame, translation, (real, real, X), {}), from_the_frame(eager_real, eager_real, X))
    assert real == eager_real
