"""`bidwire score-pbn` on real damaged PBN files (issue 27): excerpts, unchanged bytes apart from cutting, of the
PBN verifier's test files by Tis Veugen, the PBN standard's editor (tests/host/real_pbn/README.md names their
repository, path and commit). Their games are real ones -- the 1995 Amsterdam Airport Schiphol tournament
(Westra-Leufkens), a 2012 club game at Liège, a 1999 pairs traveller -- damaged on purpose, with the editor's own
note of each fault above it.

What is checked: every result that can be scored is, with figures worked out here by hand; each damage is named
with the line it is on, found by searching the file's bytes for it (not taken from bidwire); `--strict` refuses
the file at its first damage.
"""
import json
import subprocess
import sys
from pathlib import Path

BIDWIRE = str(Path(sys.executable).with_name("bidwire"))
HERE = Path(__file__).with_name("real_pbn")
ERRORS_10 = HERE / "errors_10_excerpt.pbn"
ERRORS_20 = HERE / "errors_20_excerpt.pbn"


def run(path, *args):
    return subprocess.run([BIDWIRE, "score-pbn", *args, str(path)], capture_output=True, text=True, timeout=60)


def line_of(path, needle):
    """The line `needle` is on, counting LF bytes: the file's own line numbering."""
    data = path.read_bytes()
    at = data.index(needle.encode("latin-1"))
    assert data.count(needle.encode("latin-1")) == 1, needle
    return data[:at].count(b"\n") + 1


def damage_lines(report):
    return sorted({d["line"] for d in report["damage"]})


def test_the_verifier_games_score_what_they_can_and_name_each_damage_by_its_line():
    proc = run(ERRORS_10, "--method", "mp")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    # Board 1, not vulnerable ([Vulnerable "-"] and "None"), 5H doubled by South:
    #   game 61 takes 13: 5 x 30 x 2 = 300 + game 300 + insult 50 + 2 overtricks x 100 = +850;
    #   game 73 takes 9: down 2 doubled, 100 + 200 = -300. Two results: 2 matchpoints to +850, 0 to -300.
    # Board 4, all vulnerable, 3NT by South taking 9 (game 74): 40 + 30 + 30 = 100 + game 500 = +600, alone.
    got = {b["board"]: [(r["score_ns"], r["mp_ns"]) for r in b["rows"]] for b in report["boards"]}
    assert got == {1: [(850, 2), (-300, 0)], 4: [(600, 0)]}
    assert report["problems"] == []
    bad_call = line_of(ERRORS_10, "\n- 1\n") + 1  # game 30: "Bad trump", the call "1"
    bad_card = line_of(ERRORS_10, "C8 CS CT C4")  # game 73: "Bad rank", the card CS
    note_1 = line_of(ERRORS_10, '[Note "1:Ce contrat')  # game 74: two notes whose string is never closed
    note_2 = line_of(ERRORS_10, '[Note "2:La carte')
    copied = [line_of(ERRORS_10, f'[{tag} "#"]') for tag in ("Declarer", "Contract", "Auction", "Play")]
    assert damage_lines(report) == sorted([bad_call, bad_card, note_1, note_2, *copied])
    by_line = {}
    for d in report["damage"]:
        by_line.setdefault(d["line"], []).append(d["problem"])
    assert any('"1" is not a call' in p for p in by_line[bad_call])
    assert any('"CS" is not a card' in p and "the Play section is left out" in p for p in by_line[bad_card])
    assert all(any("not closed" in p for p in by_line[n]) for n in (note_1, note_2))
    for line, tag in zip(copied, ("Declarer", "Contract", "Auction", "Play"), strict=True):
        assert any(f"[{tag}] may not inherit a value with #" in p for p in by_line[line])  # the verifier's too
    for line in (bad_call, bad_card, note_2):  # the same lines on standard error, as a scorer reads them
        assert f"line {line}: left out: " in proc.stderr


def test_a_windows_ellipsis_in_a_note_does_not_push_the_later_lines_on():
    """Game 74's first note holds byte 0x85 (Windows-1252 "…"); read as ISO 8859-1 that is U+0085, which
    Python's str.splitlines takes for a line break. The damage after it must still name the file's own line."""
    data = ERRORS_10.read_bytes()
    ellipsis = data.index(b"\x85")
    assert data[:ellipsis].count(b"\n") + 1 == line_of(ERRORS_10, '[Note "1:Ce contrat')
    report = json.loads(run(ERRORS_10, "--method", "mp").stdout)
    last = line_of(ERRORS_10, '[Note "2:La carte')
    assert last == data.count(b"\n")  # the file's last line
    assert max(d["line"] for d in report["damage"]) == last


def test_strict_refuses_the_verifier_games_at_the_first_damage():
    proc = run(ERRORS_10, "--strict", "--method", "mp")
    assert proc.returncode == 2 and proc.stdout == ""
    assert f"line {line_of(ERRORS_10, chr(10) + '- 1' + chr(10)) + 1}: " in proc.stderr


def test_a_stray_brace_costs_its_line_and_the_traveller_is_scored():
    proc = run(ERRORS_20, "--method", "mp")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    brace = line_of(ERRORS_20, "1  }")  # game 20: a } in an ActionTable row
    assert [(d["line"], "} without an opening {" in d["problem"]) for d in report["damage"]] == [(brace, True)]
    # Board 1's ScoreTable (game 22): NS +500 twice, +470 once, +450 five times (Multiplicity), 8 results, top 14.
    # +500: beats 6 (12) and ties 1 (1) = 13; +470: beats the five 450s = 10; +450: ties 4 = 4.
    # Game 23 copies the table with [ScoreTable "#"] and the same rows: the same traveller, not a second one.
    [board] = report["boards"]
    assert board["board"] == 1
    assert [(r["score_ns"], r["mp_ns"]) for r in board["rows"]] == [(500, 13)] * 2 + [(470, 10)] + [(450, 4)] * 5
    assert [r["pct_ns"] for r in board["rows"]][:3] == [round(100 * 13 / 14, 2)] * 2 + [round(100 * 10 / 14, 2)]
    assert report["problems"] == []
    strict = run(ERRORS_20, "--strict", "--method", "mp")
    assert strict.returncode == 2 and strict.stdout == "" and f"line {brace}: " in strict.stderr
