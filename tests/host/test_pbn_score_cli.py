"""`bidwire score-pbn`: the JSON report of issue 4, problems listed, malformed PBN -> exit 2 naming the line."""
import json
import os
import subprocess
import sys

import pytest

BIDWIRE = os.path.join(os.path.dirname(sys.executable), "bidwire")

TRAVELLER = """% PBN 2.1
[Event "Test"]
[Board "1"]
[Vulnerable "None"]
[ScoreTable "PairId_NS\\2R;PairId_EW\\2R;Contract\\4L;Declarer\\1R;Result\\2R;Score_NS\\5R;Score_EW\\5R"]
 1  1 4S   N 10   420     -
 2  2 4S   N 10   420     -
 3  3 4S   N 11   450     -
 4  4 2S   N 10   170     -
 5  5 3S   N  7     -   100
 6  6 4S   N 10   430     -
"""


def run(path, *args):
    return subprocess.run([BIDWIRE, "score-pbn", *args, str(path)], capture_output=True, text=True, timeout=60)


@pytest.fixture
def traveller(tmp_path):
    path = tmp_path / "t.pbn"
    path.write_text(TRAVELLER)
    return path


def test_report_shape_and_law_78A_figures(traveller):
    proc = run(traveller, "--method", "mp")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert set(report) == {"boards", "ranking", "problems", "damage"}
    [board] = report["boards"]
    assert board["board"] == 1
    # The laws.md §8.1 example: +420, +420, +450, +170, −100 (3S−2 not vulnerable) -> 5, 5, 8, 2, 0 of 8.
    assert [(r["ns"], r["score_ns"], r["mp_ns"], r["pct_ns"], r["imp_ns"]) for r in board["rows"]] == [
        ("1", 420, 5, 62.5, None), ("2", 420, 5, 62.5, None), ("3", 450, 8, 100, None), ("4", 170, 2, 25, None),
        ("5", -100, 0, 0, None)]
    assert set(board["rows"][0]) == {"ns", "ew", "score_ns", "mp_ns", "pct_ns", "imp_ns"}


def test_results_that_are_not_law77_scores_are_reported_not_used(traveller):
    report = json.loads(run(traveller, "--method", "mp").stdout)
    assert len(report["boards"][0]["rows"]) == 5
    problem = "score 430 for NS is not the Law 77 score of 4S by N taking 10 (420 with vulnerability None)"
    assert report["problems"] == [{"board": 1, "line": 11, "problem": problem}]


def test_as_published_scores_the_row_law77_would_not_give_and_names_it(traveller):
    """`--as-published` (issue 40): an event that kept the 430 on its traveller is scored as it stands. By hand,
    Law 78 A over six results, 2 per result beaten and 1 per tie, top 10: 420 beats 170 and -100 and ties the other
    420 (5), 450 beats all five (10), 430 beats the two 420s, 170 and -100 (8), 170 beats -100 (2), -100 none."""
    proc = run(traveller, "--method", "mp", "--as-published")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["problems"] == []
    assert report["published"] == [{"board": 1, "line": 11, "problem": "score 430 for NS is not the Law 77 score of "
                                    "4S by N taking 10 (420 with vulnerability None): scored as published"}]
    assert [(r["ns"], r["score_ns"], r["mp_ns"]) for r in report["boards"][0]["rows"]] == [
        ("1", 420, 5), ("2", 420, 5), ("3", 450, 10), ("4", 170, 2), ("5", -100, 0), ("6", 430, 8)]
    assert "board 1, line 11: kept: score 430" in proc.stderr
    assert "published" not in json.loads(run(traveller, "--method", "mp").stdout)  # by default, Law 77 holds


# A traveller whose percentages follow (MP + 1) / 2n. By hand, Law 78 A over five results (2 a result beaten, 1 a
# tie): 420, 420, 450, 170, -100 -> 5, 5, 8, 2, 0; (MP + 1) / (2 x 5): 60, 60, 90, 30, 10 %. Law 78 A over the top
# of 8 gives 62.5, 62.5, 100, 25, 0 instead.
OWN_METHOD = """% PBN 2.1
[Event "Test"]
[Board "1"]
[Vulnerable "None"]
[ScoreTable "PairId_NS\\2R;PairId_EW\\2R;Contract\\4L;Declarer\\1R;Result\\2R;Score_NS\\5R;Score_EW\\5R;\
Percentage_NS\\5R"]
 1  1 4S   N 10   420     - 60.00
 2  2 4S   N 10   420     - 60.00
 3  3 4S   N 11   450     - 90.00
 4  4 2S   N 10   170     - 30.00
 5  5 3S   N  7     -   100 10.00
"""


def test_the_files_own_percentage_method_is_named(tmp_path, traveller):
    path = tmp_path / "own.pbn"
    path.write_text(OWN_METHOD)
    proc = run(path, "--method", "mp")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["file_percentages"] == {"method": "(MP + 1) / 2n", "rows": 5}
    assert "the file's own percentages (5 rows) follow (MP + 1) / 2n: not a --method" in proc.stderr
    law78 = OWN_METHOD.replace("- 60.00", "- 62.50").replace("- 90.00", "- 100.00").replace("- 30.00", "- 25.00") \
        .replace("100 10.00", "100 0.00")
    path.write_text(law78)
    proc = run(path, "--method", "mp")
    assert json.loads(proc.stdout)["file_percentages"] == {"method": "mp", "rows": 5} and "own" not in proc.stderr
    assert "file_percentages" not in json.loads(run(traveller).stdout)  # a file with no percentages


def test_ranking_two_fields_with_ties(traveller):
    ranking = json.loads(run(traveller, "--method", "mp").stdout)["ranking"]
    ns = [(r["display"], r["pair"], r["total"], r["pct"]) for r in ranking if r["direction"] == "NS"]
    assert ns == [("1", "3", 8, 100), ("2=", "1", 5, 62.5), ("2=", "2", 5, 62.5), ("4", "4", 2, 25), ("5", "5", 0, 0)]
    assert ranking[0] == {"rank": 1, "display": "1", "direction": "NS", "pair": "3", "total": 8, "pct": 100,
                          "boards": 1}


def test_acbl_display_halves_the_matchpoints(traveller):
    report = json.loads(run(traveller, "--method", "mp", "--acbl").stdout)
    assert [r["mp_ns"] for r in report["boards"][0]["rows"]] == [2.5, 2.5, 4, 1, 0]
    assert [r["pct_ns"] for r in report["boards"][0]["rows"]] == [62.5, 62.5, 100, 25, 0]


def test_imp_methods_fill_imp_ns_and_leave_mp_null(traveller):
    for method in ("cross-imps", "butler"):
        report = json.loads(run(traveller, "--method", method).stdout)
        rows = report["boards"][0]["rows"]
        assert all(r["mp_ns"] is None and r["pct_ns"] is None and r["imp_ns"] is not None for r in rows)
        assert all(r["pct"] is None for r in report["ranking"])
    cross = json.loads(run(traveller, "--method", "cross-imps").stdout)["boards"][0]["rows"]
    # 420 against 420, 450, 170, −100: 0 − 1 + 6 + 11 (520) = 16, over n − 1 = 4.
    assert cross[0]["imp_ns"] == 4


@pytest.mark.parametrize("text,line", [
    ('[Board "1"]\nnot a tag\n', 2),
    ('[Event "x"]\n[Board "1"\n[Site "y"]\n', 2),
    ("\x00\x01binary junk\n", 1),
])
def test_malformed_pbn_exits_2_with_the_line(tmp_path, text, line):
    path = tmp_path / "bad.pbn"
    path.write_text(text)
    proc = run(path, "--method", "neuberg")
    assert proc.returncode == 2
    assert proc.stdout == "" and "Traceback" not in proc.stderr
    assert f"line {line}: " in proc.stderr and str(path) in proc.stderr


# Board 1 has a contract of 8S (line 8) and a row one value short (line 10); board 2 a Result of "many" (line 16).
JUNK = """% PBN 2.1
[Event "Junk"]
[Board "1"]
[Vulnerable "None"]
[ScoreTable "PairId_NS\\2R;PairId_EW\\2R;Contract\\4L;Declarer\\1R;Result\\2R"]
 1  1 4S   N 10
 2  2 4S   N 11
 3  3 8S   N 10
 4  4 3NT  S  9
 5  5 4S   N
 6  6 4S   N  9

[Event "Junk"]
[Board "2"]
[ScoreTable "PairId_NS\\2R;PairId_EW\\2R;Contract\\4L;Declarer\\1R;Result\\2R"]
 1  2 3NT  S many
 2  3 3NT  S  9
 3  1 3NT  S 10
"""


def test_junk_rows_are_named_and_every_other_row_is_scored(tmp_path):
    path = tmp_path / "junk.pbn"
    path.write_text(JUNK)
    proc = run(path, "--method", "mp")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert [(p["board"], p["line"]) for p in report["problems"]] == [(1, 8), (1, 10), (2, 16)]
    assert "8S" in report["problems"][0]["problem"] and "values for 5 columns" in report["problems"][1]["problem"]
    assert "many" in report["problems"][2]["problem"]
    for board, line in ((1, 8), (1, 10), (2, 16)):
        assert f"board {board}, line {line}: not scored:" in proc.stderr
    rows = {b["board"]: [(r["ns"], r["mp_ns"]) for r in b["rows"]] for b in report["boards"]}
    # board 1: 420, 450, 400 (3NT=), -50 (4S-1) -> 450 beats 3: 6; 420 beats 2: 4; 400: 2; -50: 0 (Law 78 A)
    assert rows[1] == [("1", 4), ("2", 6), ("4", 2), ("6", 0)]
    assert rows[2] == [("2", 0), ("3", 2)]  # 400 and 430


def test_strict_refuses_the_file_at_the_first_junk_row(tmp_path):
    path = tmp_path / "junk.pbn"
    path.write_text(JUNK)
    proc = run(path, "--method", "mp", "--strict")
    assert proc.returncode == 2 and proc.stdout == ""
    assert "line 8: " in proc.stderr or "line 10: " in proc.stderr


def test_nothing_scored_exits_1_naming_the_rows(tmp_path):
    path = tmp_path / "junk.pbn"
    path.write_text('[Board "1"]\n[ScoreTable "Contract;Declarer;Result"]\n4S N many\n9NT S 9\n')
    proc = run(path, "--method", "mp")
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    assert [p["line"] for p in report["problems"]] == [3, 4] and "nothing could be scored" in proc.stderr


def test_latin1_file_is_read(tmp_path):
    path = tmp_path / "latin1.pbn"
    path.write_bytes(TRAVELLER.replace('"Test"', '"Sören"').encode("latin-1"))
    assert run(path).returncode == 0


def test_missing_file_and_bad_method_are_usage_errors(tmp_path):
    assert run(tmp_path / "nope.pbn").returncode == 2
    proc = run(tmp_path / "nope.pbn", "--method", "swiss")
    assert proc.returncode == 2 and "swiss" in proc.stderr
