"""`bidwire export --section X` reads that section alone (Standings.load(conn, section); issue 14) and writes what
an export of a store holding only that section writes: the stores are bench/export_bench.py's (an event of
Mitchell sections, every pair named, hand records analysed, 450 results a section with their auctions and leads),
one of three sections and one of section A alone (the same rows: A is dealt first), each with the same director's
decisions for A (an adjusted score, a correction) and, in the three-section store, decisions for B too."""
import os
import re
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from export_bench import store_for_export  # noqa: E402

from bidwire_host.collector import (  # noqa: E402
    derive,
    event_setup,  # noqa: E402
    export,
)
from bidwire_host.collector.decisions import kinds  # noqa: E402
from bidwire_host.collector.standings import Standings  # noqa: E402

BIDWIRE = os.path.join(os.path.dirname(sys.executable), "bidwire")
AT = datetime(2026, 12, 1, 21, 0, tzinfo=timezone.utc)


def _decide(data, decisions):
    def job(conn):
        for kind, body in decisions:
            kinds.ACTIONS[kind](conn, event_setup.load(conn), body, AT)
    with derive.open_store(data) as store:
        store.write(job)


def _row(data, section, table, board):
    with derive.open_store(data) as store:
        r = store.reader().execute("SELECT unit, seq FROM results WHERE section = ? AND table_no = ? AND board = ?",
                                   (section, table, board)).fetchone()
        return r["unit"], r["seq"]


def _decisions_for(data, section):
    unit, seq = _row(data, section, 2, 4)
    return [("adjust", {"section": section, "table": 1, "board": 1, "ns": "A+", "ew": "A-", "reason": "slow"}),
            ("correct", {"unit": unit, "seq": seq, "tricks": 13, "contract": "7NT", "declarer": "N",
                         "reason": "as agreed"})]


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    three, alone = tmp_path_factory.mktemp("three") / "data", tmp_path_factory.mktemp("alone") / "data"
    assert store_for_export(three, sections=3) == 3 * 450
    assert store_for_export(alone, sections=1) == 450
    _decide(three, _decisions_for(three, "A") + _decisions_for(three, "B")
            + [("penalty", {"section": "B", "direction": "NS", "pair": "1", "amount": 1,
                            "reason": "slow play"})])
    _decide(alone, _decisions_for(alone, "A"))
    return three, alone


def _cli(data, fmt, out, *more):
    r = subprocess.run([BIDWIRE, "export", "--data", str(data), "--format", fmt, "--out", str(out), *more],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return out.read_bytes()


@pytest.mark.parametrize("fmt", ["pbn", "usebio", "csv"])
def test_one_sections_export_equals_the_export_of_a_store_holding_only_that_section(stores, tmp_path, fmt):
    three, alone = stores
    mine = _cli(three, fmt, tmp_path / "three", "--section", "A")
    theirs = _cli(alone, fmt, tmp_path / "alone")
    if fmt == "usebio":  # a file a section: in the three-section event's, the description names its section
        description = re.search(rb"<EVENT_DESCRIPTION>(.*?)</EVENT_DESCRIPTION>", theirs).group(1)
        theirs = theirs.replace(description, description + b", section A", 1)
    assert mine == theirs and len(mine) > 1000
    if fmt == "pbn":
        text = mine.decode("utf-8")
        boards = {line for line in text.splitlines() if line.startswith('[Board "')}
        assert len(boards) == 30 and "^A+" in text and '[Contract "7NT"]' in text  # A's decisions are in


def test_a_section_loaded_alone_scores_as_in_the_whole_store(stores):
    three, _ = stores
    with derive.open_store(three) as store:
        conn = store.reader()
        whole, one = Standings(), Standings()
        whole.load(conn)
        one.load(conn, "B")
        assert sorted(whole.sessions) == ["A", "B", "C"] and sorted(one.sessions) == ["B"]
        for fmt in ("pbn", "usebio"):
            assert export.render(conn, one, fmt, "B") == export.render(conn, whole, fmt, "B")
        assert [r for r in whole.ranking() if r["section"] == "B"] == one.ranking()
        assert any(r["penalty"] != "0" for r in one.ranking())  # B's penalty is in
