"""`bidwire referee` and `bidwire score`: JSON Lines in, one line out per line, errors on their own line."""
import json
import os
import subprocess
import sys

import pytest
from vectors import load

BIDWIRE = os.path.join(os.path.dirname(sys.executable), "bidwire")


def run(command, lines):
    text = "".join(line if isinstance(line, str) else json.dumps(line) + "\n" for line in lines)
    proc = subprocess.run([BIDWIRE, command], input=text, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return [json.loads(x) for x in proc.stdout.splitlines()]


def test_referee_issue_example_3nt_by_south():
    calls = [["S", "1S"], ["W", "P"], ["N", "2C"], ["E", "P"], ["S", "2NT"], ["W", "P"], ["N", "3NT"],
             ["E", "P"], ["S", "P"], ["W", "P"]]
    [out] = run("referee", [{"dealer": "S", "calls": calls}])
    assert out == {"id": None, "state": "complete", "next": None, "contract": "3NT", "declarer": "S",
                   "irregularity": None}


def test_referee_contract_vectors_without_irregularities():
    vectors = [v for v in load("auction_contracts.json") if "rotation" not in v["auction_text"]
               and "insufficient" not in v["auction_text"]]
    assert len(vectors) >= 8
    outs = run("referee", [{"id": v["id"], "dealer": v["dealer"], "calls": v["calls"]} for v in vectors])
    for v, out in zip(vectors, outs, strict=True):
        assert out["id"] == v["id"]
        assert out["state"] == ("passed_out" if v["contract"] == "Pass" else "complete"), v["id"]
        assert out["contract"] == (None if v["contract"] == "Pass" else v["contract"]), v["id"]
        assert out["declarer"] == v["declarer"], v["id"]


def test_referee_reports_open_auction_and_next_seat():
    [out] = run("referee", [{"dealer": "E", "calls": [["E", "1D"], ["S", "P"]]}])
    assert out["state"] == "open" and out["next"] == "W" and out["contract"] is None


@pytest.mark.parametrize("mode,calls,kind,law,at", [
    ("record", [["N", "1H"], ["S", "P"]], "out_of_rotation", 30, 1),            # laws.md A18
    ("record", [["N", "1S"], ["E", "1H"]], "insufficient_bid", 27, 1),          # A06
    ("record", [["N", "1H"], ["E", "P"], ["S", "X"]], "inadmissible_double", 36, 2),  # A08
    ("record", [["N", "1H"], ["E", "XX"]], "inadmissible_redouble", 36, 1),     # A09
    ("record", [["N", "1H"], ["N", "P"]], "change_of_call", 25, 1),             # A19
    ("record", [["N", "1H"], ["E", "P"], ["S", "P"], ["W", "P"], ["E", "X"]], "after_close", 39, 4),  # A22
    ("record", [["N", "7NT"], ["E", "8C"]], "above_seven", 38, 1),              # A21
    ("enforce", [["N", "1H"], ["W", "1S"]], "out_of_rotation", 31, 1),
    ("enforce", [["N", "1S"], ["E", "1H"]], "insufficient_bid", 27, 1),
    ("enforce", [["N", "1H"], ["E", "P"], ["S", "X"]], "inadmissible_double", 36, 2),
])
def test_referee_stops_at_first_irregularity(mode, calls, kind, law, at):
    [out] = run("referee", [{"dealer": "N", "mode": mode, "calls": calls + [["E", "P"]]}])
    assert out["state"] == "irregular"
    assert out["irregularity"] == {"at": at, "kind": kind, "law": law}


def test_referee_malformed_lines_get_errors_and_processing_continues():
    outs = run("referee", [
        "{not json\n",
        {"calls": []},
        {"dealer": "N", "calls": [["N", "1Z"]]},
        {"dealer": "N", "calls": "1H"},
        {"dealer": "N", "mode": "strict"},
        [1, 2],
        {"dealer": "N", "calls": [["N", "1H"]]},
    ])
    assert len(outs) == 7
    assert all(set(o) == {"error"} for o in outs[:6]), outs
    assert "dealer" in outs[1]["error"] and "calls[0]" in outs[2]["error"] and "mode" in outs[4]["error"]
    assert outs[6]["state"] == "open" and outs[6]["next"] == "E"


def test_score_vectors_through_the_cli():
    vectors = load("scores.json")
    lines = []
    for v in vectors:
        if v["contract"] == "Pass":
            lines.append({"contract": "Pass", "vul": "None"})
        else:  # North declares: the NS view equals declarer's score
            lines.append({"contract": v["contract"], "declarer": "N", "vul": "NS" if v["vulnerable"] else "EW",
                          "tricks": v["tricks"]})
    outs = run("score", lines)
    assert [o["ns"] for o in outs] == [v["score"] if v["contract"] != "Pass" else 0 for v in vectors]


def test_score_board_number_and_errors():
    outs = run("score", [
        {"contract": "4SX", "declarer": "E", "board": 4, "tricks": 6},   # laws.md §7: +1100 to NS
        {"contract": "3NT", "declarer": "S", "board": 1, "tricks": 10},  # +430
        {"contract": "4S", "declarer": "N", "vul": "None", "tricks": 14},
        {"contract": "4S", "declarer": "N", "vul": "Some", "tricks": 10},
        {"contract": "8S", "declarer": "N", "vul": "None", "tricks": 10},
        {"id": 7, "contract": "2H", "declarer": "W", "vul": "All", "tricks": 8},
    ])
    assert outs[0] == {"ns": 1100} and outs[1] == {"ns": 430}
    assert "0-13" in outs[2]["error"] and "vulnerability" in outs[3]["error"] and "1-7" in outs[4]["error"]
    assert outs[5] == {"id": 7, "ns": -110}
