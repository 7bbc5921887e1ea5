"""Logs: LOOM_LOGS / loom.set_logs switch topics on; each topic says what it promises."""

import logging
import sys

import pytest
import torch

import loom
from loom import logs


def f(x):
    return torch.sin(x) + 1


def breaks(x):
    print("side effect", file=sys.stdout)
    return x


def test_parse_names_levels_and_all():
    assert logs.parse("graph, +guards ,,") == {"graph": logging.INFO, "guards": logging.DEBUG}
    assert set(logs.parse("all")) == set(logs.TOPICS)
    assert logs.parse("+all")["recompiles"] == logging.DEBUG
    assert logs.parse("output_code") == {"output_code": logging.DEBUG}  # generated source is logged at DEBUG
    assert logs.parse("") == {}
    with pytest.raises(ValueError) as info:
        logs.parse("graphs")
    assert "unknown loom log topic 'graphs'" in str(info.value)
    for topic in ("bytecode", "graph", "guards", "recompiles", "graph_breaks", "output_code"):
        assert topic in str(info.value)


def run_with(spec, fn, *args):
    loom.set_logs(spec)
    try:
        fn(*args)
    finally:
        loom.set_logs()


def test_graph_guards_bytecode_and_output_code(capsys):
    run_with("graph,guards,bytecode,output_code", loom.compile(f, backend="eager"), torch.randn(4))
    err = capsys.readouterr().err
    assert "[loom.graph] graph __loom_graph_" in err and " of f (" in err and "2 ops" in err and "torch.sin" in err
    assert "[loom.guards] guards of f (" in err and "L['x'] is a torch.Tensor" in err
    assert "[loom.bytecode] original bytecode of f (" in err and "rewritten bytecode of f" in err
    assert "[loom.output_code] graph __loom_graph_" in err and "compiled by backend 'eager'" in err
    assert "float32[4]" not in err  # the node table is verbose only


def test_verbose_graph_adds_the_node_table(capsys):
    run_with("+graph", loom.compile(f, backend="eager"), torch.randn(4))
    err = capsys.readouterr().err
    assert "float32[4]" in err and "placeholder" in err


def test_recompiles_name_the_failed_guard(capsys):
    compiled = loom.compile(f, backend="eager")
    compiled(torch.randn(4))
    run_with("recompiles", compiled, torch.randn(4, dtype=torch.float64))
    err = capsys.readouterr().err
    assert "[loom.recompiles] recompiling f (" in err
    assert "dtype" in err and "float64" in err
    assert "cache miss" not in err  # every miss only at DEBUG
    run_with("+recompiles", compiled, torch.randn(5))
    assert "cache miss in f" in capsys.readouterr().err


def test_graph_breaks_show_the_users_line(capsys):
    run_with("graph_breaks", loom.compile(breaks, backend="eager"), torch.randn(2))
    err = capsys.readouterr().err
    line = breaks.__code__.co_firstlineno + 1
    assert "[loom.graph_breaks] graph break in breaks (" in err
    assert f":{line} in breaks" in err and 'print("side effect", file=sys.stdout)' in err


def test_set_logs_off_is_silent_and_returns_the_topics(capsys):
    assert loom.set_logs("graph,+guards") == {"graph": "INFO", "guards": "DEBUG"}
    assert logs.enabled() == {"graph": "INFO", "guards": "DEBUG"}
    assert loom.set_logs() == {}
    loom.compile(f, backend="eager")(torch.randn(4))
    assert capsys.readouterr().err == ""
    assert logging.getLogger("loom.graph").propagate is True


def test_without_set_logs_the_loggers_are_plain_logging_loggers(caplog):
    with caplog.at_level(logging.INFO, logger="loom.graph"):
        loom.compile(f, backend="eager")(torch.randn(4))
    records = [r for r in caplog.records if r.name == "loom.graph"]
    assert len(records) == 1 and "torch.sin" in records[0].getMessage()


def test_loom_logs_environment_variable(monkeypatch, capsys):
    monkeypatch.setenv("LOOM_LOGS", "+guards")
    logs.init_from_env()
    try:
        assert logs.enabled() == {"guards": "DEBUG"}
        loom.compile(f, backend="eager")(torch.randn(4))
        assert "[loom.guards]" in capsys.readouterr().err
    finally:
        loom.set_logs()
    monkeypatch.setenv("LOOM_LOGS", "nonsense")
    with pytest.warns(RuntimeWarning, match="LOOM_LOGS ignored: unknown loom log topic 'nonsense'"):
        logs.init_from_env()
    assert logs.enabled() == {}
