"""A PBN file with junk gets a clear error: hypothesis mutations of real PBN files through the importer.

What `bidwire score-pbn` and an event's hand-record file go through: bytes -> score_pbn.decode -> pbn_import.load
(-> score_pbn.score_pbn). Whatever the bytes, that either succeeds or raises pbn.PbnError whose message starts
"line N: " with N a line of the file; no other exception (IndexError, KeyError, ValueError, UnicodeDecodeError,
ScoringError, ...) may leak, since the CLI and the event loader catch PbnError only.

The seeds: a traveller file written by hand in PBN's import format (comments, escapes, notes, an auction, a play
section, inheritance, ScoreTables with Multiplicity and artificial scores, one game per table), and a file the
project's own exporter writes in export format. test_pbn_parse.py feeds the parser random fragments; here the
mutations start from whole, valid files, so they reach the importer's later stages.
"""
import re
from collections import Counter

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bidwire_host.formats import pbn_export
from bidwire_host.formats.pbn import PbnError, parse_deal
from bidwire_host.formats.pbn_import import HandRecord, load
from bidwire_host.formats.publish import AuctionCall, EventInfo, publication
from bidwire_host.formats.score_pbn import METHODS, decode, score_pbn
from bidwire_host.scoring import Artificial, Result

DEAL = "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"
DEAL_E = "E:T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765 AKQJ.T98.765.432"  # the same hands, East first

IMPORT = f"""% PBN 2.1
% Club night: one traveller per board, written by hand
[Event "Club \\"Monday\\" pairs"]
[Site "##Hall"]
[Date "2024.05.01"]
[Board "1"]
[West "W1"] [North "N1"] [East "E1"] [South "S1"]
[Dealer "N"]
[Vulnerable "None"]
[Deal "{DEAL}"]
[Scoring "MP"]
[Declarer "N"]
[Contract "4S"]
[Result "10"]
[Auction "N"]
1S Pass 2NT =1= Pass
4S Pass Pass Pass
[Note "1:Jacoby: game-forcing raise"]
[Play "E"]
C2 CA C3 C4
*
[ScoreTable "PairId_NS\\2R;PairId_EW\\2R;Contract\\4L;Declarer\\1R;Result\\2R;Score_NS\\5R;Score_EW\\5R"]
 1  1 4S   N 10   420     -
 2  2 3NT  S  9     -     -
 3  3 4SX  N  9     -   100
 4  4 Pass -  -     0     -
{{ a comment
   over two lines [Board "9"] }}

[Event "#"]
[Board "2"]
[Dealer "E"]
[Vulnerable "NS"]
[Deal "{DEAL_E}"]
[ScoreTable "Contract\\5L;Declarer\\1;Result\\2R;Multiplicity"]
4H    N 10 2
3NT   S  = 1 ; made exactly
-     -  - 1

[Board "3"]
[Dealer "S"]
[Vulnerable "EW"]
[ScoreTable "PairId_NS;PairId_EW;Contract;Declarer;Result;Score_NS;Score_EW"]
1 1 - - - ^A+ ^A-
2 2 6S N 12 980 -

[Board "4"]
[Dealer "W"]
[Vulnerable "All"]
[PairNS "5"]
[PairEW "6"]
[Contract "3NTX"]
[Declarer "E"]
[Result "7"]
[Score "NS 500"]
"""
# Worked by hand (Law 77), not read back from the importer: (board, NS score) of every scored row.
IMPORT_SCORES = Counter({(1, 420): 1, (1, 400): 1, (1, -100): 1, (1, 0): 1, (2, 620): 2, (2, 600): 1,
                         (3, 980): 1, (4, 500): 1})


def _export():
    results = [Result.played(1, "1", "1", "4S", "N", 10, table="1"),
               Result.played(1, "2", "2", "3NT", "S", 8, table="2"),
               Result.played(2, "1", "1", "2HX", "E", 8, table="1"),
               Result(2, "2", "2", adjusted=Artificial("A+", "A-"), table="2")]
    hands = {b: HandRecord(b, "NESW"[(b - 1) % 4], b - 1, parse_deal(DEAL)) for b in (1, 2)}
    auction = [AuctionCall("1S"), AuctionCall("Pass"), AuctionCall("2NT", True, "Jacoby"), AuctionCall("Pass"),
               AuctionCall("4S"), AuctionCall("Pass"), AuctionCall("Pass"), AuctionCall("Pass")]
    return pbn_export.dumps(publication(results, EventInfo("Club pairs", "Hall", "2024.05.01", "mp"), hands=hands,
                                        auctions={(1, 0): auction}))


EXPORT = _export()
# 4S by N making 10 (+420), 3NT by S one down (-50), both not vulnerable; board 2 (NS vulnerable) 2HX by E
# making 8 (EW +470, NS -470).
EXPORT_SCORES = Counter({(1, 420): 1, (1, -50): 1, (2, -470): 1})
SEEDS = {"import": IMPORT, "export": EXPORT}


def scores(imported):
    return Counter((r.board, r.score_ns) for r in imported.results if r.score_ns is not None)


@pytest.mark.parametrize("name,expected", [("import", IMPORT_SCORES), ("export", EXPORT_SCORES)])
def test_the_seeds_are_valid_pbn(name, expected):
    """The fuzzing starts from files the importer reads whole (else every mutation would only be an error)."""
    got = load(SEEDS[name])
    assert scores(got) == expected
    assert len(got.results) == sum(expected.values()) + 1  # and one artificial score
    if name == "import":
        assert [p.line for p in got.problems] == [38]  # the "- - - 1" row: nothing to score


def importer(data, methods=METHODS):
    """What a PBN file goes through: bytes decoded, games read, results scored (by every method)."""
    text = decode(data) if isinstance(data, bytes) else data
    imported = load(text)
    for method in methods:
        score_pbn(text, method)
    return text, imported


def read_or_clear_error(data, methods=METHODS):
    """The importer's answer, or the PbnError it raised, checked: 'line N: reason' with N a line of the file."""
    text = decode(data) if isinstance(data, bytes) else data
    try:
        return importer(data, methods)[1]
    except PbnError as e:
        message = str(e)
        assert message.startswith(f"line {e.line}: ") and len(message) > len(f"line {e.line}: "), message
        lines = max(1, len(text.splitlines()))
        assert isinstance(e.line, int) and 1 <= e.line <= lines, (e.line, lines, message)
        return e


# ---- mutations of a valid file -----------------------------------------------------------------------------------
PBN_CHARS = st.sampled_from(list('[]{}";%#\\^*+-=!?$ \t\r\n:.ANSWEHDCTKQJX0123456789') + ["é", "\x00", "\ufeff",
                                                                                           "\u2028", "\x85"])
JUNK_LINE = st.one_of(
    st.text(max_size=40), st.text(PBN_CHARS, max_size=40),
    st.sampled_from(['[Board "x"]', '[Board "0"]', '[Board "99999999999999999999"]', '[Vulnerable "Q"]',
                     '[Dealer "Z"]', '[Deal "N:AKQ"]', '[Deal "#"]', '[Contract "9Z"]', '[Contract "4S"]',
                     '[Declarer "Q"]', '[Result "ten"]', '[Result "NS 14"]', '[Result "+99"]', '[Score "NS"]',
                     '[Score "EW x"]', '[Note "x"]', '[Note "99:x"]', '[ScoreTable ";"]', '[ScoreTable "A\\0"]',
                     '[ScoreTable "Contract;Multiplicity"]', '4S 99999999', '4S -1', '[Auction "X"]', '1C =0=',
                     '1C $', '1C =99999999999999999999=', '[Play "N"]', 'SA =1= $2 !?', '^A+ ^A-', '^B ^A',
                     '^ ^', '^-', '^999999999999999999999 -', '[Event "##"]', '[Site "#"]', "%", "{", "}", "", " "]))


# Values a tag or a table cell could hold instead of the right one, including digits int() does not take.
TOKENS = st.sampled_from(["^A+", "^A-", "^A", "^", "^-", "^+", "^60", "^110", "^-620", "^²", "^A+ ^A-", "=", "+", "-",
                          "+99", "-14", "13", "14", "0", "-1", "99999999999999999999", "7NTXX", "8S", "0S", "4SXXX",
                          "AP", "Pass", "?", "#", "##", "N", "Q", "NS", "EW 3", "NS 620 EW", "1e3", "²", "³", "٣", "①",
                          "1_0", " 1", "", '"', "\\", "4S N 10"]) | st.text(PBN_CHARS, max_size=5)


@st.composite
def mutated(draw, seed):
    lines = seed.splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 4))):
        if not lines:
            lines = ["\n"]
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["delete line", "insert line", "duplicate line", "swap lines", "replace line",
                                   "flip char", "insert chars", "delete chars", "truncate", "replace token",
                                   "replace tag value"]))
        if op == "delete line":
            del lines[i]
        elif op == "insert line":
            lines.insert(i, draw(JUNK_LINE | st.sampled_from(lines)).rstrip("\n") + "\n")
        elif op == "duplicate line":
            lines.insert(i, lines[i])
        elif op == "swap lines":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "replace line":
            lines[i] = draw(JUNK_LINE) + "\n"
        elif op == "replace token":  # one value of a table row (or a word of a tag line)
            words = lines[i].split()
            if words:
                words[draw(st.integers(0, len(words) - 1))] = draw(TOKENS)
                lines[i] = " ".join(words) + "\n"
        elif op == "replace tag value":
            tags = [k for k, line in enumerate(lines) if line.startswith("[") and line.count('"') == 2]
            k = tags[draw(st.integers(0, len(tags) - 1))] if tags else i
            name = lines[k][1:].split(" ", 1)[0]
            lines[k] = f'[{name} "{draw(TOKENS)}"]\n'
        else:
            line = lines[i]
            k = draw(st.integers(0, len(line)))
            if op == "flip char" and line:
                k = min(k, len(line) - 1)
                lines[i] = line[:k] + draw(PBN_CHARS | st.characters()) + line[k + 1:]
            elif op == "insert chars":
                lines[i] = line[:k] + draw(st.text(PBN_CHARS, min_size=1, max_size=6)) + line[k:]
            elif op == "delete chars":
                lines[i] = line[:k] + line[k + draw(st.integers(1, 6)):]
            else:  # the file ends here
                lines = lines[:i] + [line[:k]]
    return "".join(lines)


FUZZ = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(text=st.sampled_from(sorted(SEEDS)).flatmap(lambda name: mutated(SEEDS[name])))
@example(text=IMPORT.replace('[Result "10"]', '[Result "NS"]'))
# Regressions: ValueError from int() on a value str.isdigit() had let through ('²' is a digit to isdigit(),
# not to int()): the board number, a note's index, an assigned score, a pair number when ranking ties.
@example(text=IMPORT.replace('[Board "1"]', '[Board "²"]'))
@example(text=IMPORT.replace('[Note "1:', '[Note "²:'))
@example(text=IMPORT.replace("^A+ ^A-", "^² ^A-"))
@example(text=IMPORT.replace("^A+ ^A-", "^+-5 ^A-"))
@example(text=IMPORT.replace('[PairNS "5"]', '[PairNS "²"]'))
def test_a_mutated_file_is_read_or_refused_with_its_line(text):
    read_or_clear_error(text)


# Odd values for any one tag value or table cell: digits int() refuses, empty, huge, inheritance marks, carets.
ODD = ["²", "^²", "1²", "^+-5", "①", "٣", "", "-1", "0", "99999999999999999999", "#", "##", "^", "^A", "?", "=", "+99",
       "NS 14", "é"]


def one_value_replaced(seed):
    """(line, file) for every tag value and every table cell of the seed, each replaced by each ODD value."""
    lines = seed.splitlines(keepends=True)
    for n, line in enumerate(lines):
        if line.startswith("["):
            spans = [m.span(1) for m in re.finditer(r'"((?:[^"\\]|\\.)*)"', line)]
        elif line.strip() and line[0] not in "%{;":
            spans = [m.span() for m in re.finditer(r"[^\s;]+", line)]
        else:
            spans = []
        for a, b in spans:
            for value in ODD:
                yield n + 1, "".join(lines[:n]) + line[:a] + value + line[b:] + "".join(lines[n + 1:])


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_every_value_replaced_by_an_odd_one_is_read_or_refused_with_its_line(name):
    """Exhaustive, not sampled: one value at a time, everywhere (scored by one method, for time)."""
    cases = list(one_value_replaced(SEEDS[name]))
    assert len(cases) > 50 * len(ODD)
    for _, text in cases:
        read_or_clear_error(text, methods=["mp"])


@FUZZ
@given(text=st.text(PBN_CHARS, max_size=300) | st.text(max_size=300))
def test_random_junk_is_read_or_refused_with_its_line(text):
    read_or_clear_error(text)


@FUZZ
@given(data=st.data(), name=st.sampled_from(sorted(SEEDS)), encoding=st.sampled_from(["utf-8", "latin-1",
                                                                                       "utf-8-sig", "utf-16"]))
def test_bytes_that_are_not_utf8_are_read_or_refused_with_its_line(data, name, encoding):
    """The file as bytes in some encoding, then bytes flipped, inserted or cut: never a UnicodeDecodeError."""
    raw = bytearray(SEEDS[name].replace("Monday", "Müller").encode(encoding, "replace"))
    for _ in range(data.draw(st.integers(0, 4))):
        if not raw:
            break
        i = data.draw(st.integers(0, len(raw) - 1))
        op = data.draw(st.sampled_from(["flip", "insert", "cut"]))
        if op == "flip":
            raw[i] ^= data.draw(st.integers(1, 255))
        elif op == "insert":
            raw[i:i] = data.draw(st.binary(min_size=1, max_size=4) | st.sampled_from(
                [b"\xff", b"\xc3", b"\xe9", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\x00", b"\r", b"\x1a"]))
        else:
            del raw[i:]
    read_or_clear_error(bytes(raw))


@FUZZ
@given(raw=st.binary(max_size=400))
def test_arbitrary_bytes_are_read_or_refused_with_their_line(raw):
    read_or_clear_error(raw)


def test_a_latin1_file_is_read_as_latin1():
    """PBN's own character set is ISO 8859-1 (§2.2): such a file is not UTF-8 and is still read, names intact."""
    raw = IMPORT.replace('[West "W1"]', '[West "Müller"]').encode("latin-1")
    text, imported = importer(raw)
    assert scores(imported) == IMPORT_SCORES and '[West "Müller"]' in text


# ---- junk after the last game loses nothing of the games before it ----------------------------------------------
@FUZZ
@given(junk=st.lists(JUNK_LINE, min_size=1, max_size=8).map("\n".join))
def test_a_game_of_junk_appended_is_refused_or_leaves_every_earlier_result(junk):
    """A new game (after a blank line) with junk: a PbnError, or every result of the file before is still there
    (boards with a ScoreTable keep their first one)."""
    got = read_or_clear_error(IMPORT + "\n" + junk + "\n")
    if isinstance(got, PbnError):
        return
    tabled = Counter({k: n for k, n in IMPORT_SCORES.items() if k[0] != 4})  # board 4 is one game per table
    assert not tabled - scores(got), tabled - scores(got)
