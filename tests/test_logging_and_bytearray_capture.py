"""Logging calls and ``bytearray`` as torch.compile captures them: one graph, no break, where the log level
is not emitted (``logging.getLogger(name)`` the real logger) and for a bytearray made in the function; the
values, records and exceptions are eager's, and enabling a level later compiles again and logs it."""

import logging

import pytest
import torch

import loom

NAME = "loom.tests.logs8"
log = logging.getLogger(NAME)


def quiet_logging(x):
    logging.getLogger("loom.tests.logs8.foo").info("hi %s", 1)
    log.debug("d %s", 2)
    return x * 2 + 1


def appends_to_a_bytearray(x):
    b = bytearray(b"ab")
    b.append(99)
    return x + len(b)


def _counts_of_torch_compile(fn, x):
    torch._dynamo.reset()
    try:
        explained = torch._dynamo.explain(fn)(x)
    finally:
        torch._dynamo.reset()
    return explained.graph_count, explained.graph_break_count


@pytest.mark.parametrize("fn", [quiet_logging, appends_to_a_bytearray])
def test_one_graph_and_no_break_as_torch_compile(fn, caplog):
    x = torch.arange(3.0)
    caplog.set_level(logging.WARNING, logger=NAME)
    report = loom.explain(fn)(x)
    assert (len(report.graphs), len(report.breaks)) == (1, 0), [str(b) for b in report.breaks]
    assert _counts_of_torch_compile(fn, x) == (1, 0)
    caplog.clear()
    assert torch.equal(loom.compile(fn)(x), fn(x))
    assert not caplog.records


def logs_tensors(x):
    logging.getLogger("loom.tests.logs8.foo").info("hi %s", 1)
    log.debug("d %s", x)
    y = x * 2
    log.info("i %s", y.shape)
    return y + 1


def _records(caplog, run, x):
    caplog.clear()
    result = run(x)
    return result, [(r.name, r.levelname, r.getMessage(), r.funcName, r.lineno) for r in caplog.records]


def test_enabling_a_level_later_compiles_again_and_logs_each_record_once_in_order(caplog):
    x = torch.arange(3.0)
    compiled = loom.compile(logs_tensors)
    caplog.set_level(logging.WARNING, logger=NAME)
    caplog.set_level(logging.WARNING, logger=f"{NAME}.foo")
    report = loom.explain(logs_tensors)(x)
    assert (len(report.graphs), len(report.breaks)) == (1, 0), [str(b) for b in report.breaks]
    assert _records(caplog, compiled, x)[1] == [] == _records(caplog, logs_tensors, x)[1]
    caplog.set_level(logging.INFO, logger=f"{NAME}.foo")
    caplog.set_level(logging.DEBUG, logger=NAME)  # (last: it sets caplog's handler to DEBUG too)
    eager, eager_records = _records(caplog, logs_tensors, x)
    got, records = _records(caplog, compiled, x)
    assert torch.equal(got, eager)
    assert records == eager_records and len(records) == 3, (records, eager_records)
    assert records[1][2] == "d tensor([0., 1., 2.])"


def builds_a_bytearray(x):
    b = bytearray(b"ab")
    b.append(99)
    b[0] = 1
    b.extend(bytearray(2))
    total = sum(c for c in b)
    return x + len(b) + total, bytes(b), b.decode("latin-1"), b


def test_a_bytearray_built_in_the_function_matches_eager():
    x = torch.arange(3.0)
    report = loom.explain(builds_a_bytearray)(x)
    assert (len(report.graphs), len(report.breaks)) == (1, 0), [str(b) for b in report.breaks]
    got, expected = loom.compile(builds_a_bytearray)(x), builds_a_bytearray(x)
    assert torch.equal(got[0], expected[0]) and got[1:] == expected[1:] and type(got[3]) is bytearray


def bad_byte(x):
    b = bytearray(b"a")
    try:
        b.append(256)
    except ValueError as e:
        return x + 1, str(e), b
    return x, "", b


def test_a_bad_byte_raises_cpythons_error_inside_the_graph():
    x = torch.arange(3.0)
    report = loom.explain(bad_byte)(x)
    assert (len(report.graphs), len(report.breaks)) == (1, 0), [str(b) for b in report.breaks]
    got, expected = loom.compile(bad_byte)(x), bad_byte(x)
    assert torch.equal(got[0], expected[0]) and got[1:] == expected[1:] == ("byte must be in range(0, 256)",
                                                                          bytearray(b"a"))


def logs_in_a_loop(x):
    for i in range(3):
        log.warning("step %d", i)
        x = x + i
    return x


def test_an_emitted_call_that_breaks_in_a_loop_logs_once_per_pass_and_counts_one_break(caplog):
    x = torch.arange(3.0)
    caplog.set_level(logging.WARNING, logger=NAME)  # caplog's handler keeps records: the call breaks
    eager, eager_records = _records(caplog, logs_in_a_loop, x)
    got, records = _records(caplog, loom.compile(logs_in_a_loop), x)
    assert torch.equal(got, eager) and records == eager_records and len(records) == 3
    assert loom.stats()["graph_breaks"] == 1
