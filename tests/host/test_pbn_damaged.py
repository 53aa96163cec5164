"""Real files, read as a scorer needs them (issue 27, item 3): `bidwire score-pbn` on small files shaped as the
1,394 real tournament files it was run on are: a board's second game writing `[Deal "#"]` (the previous game's
deal), a DOS end-of-file mark (Ctrl-Z) at the end, and the damage found there -- a card dealt twice, a garbage deal,
a stray `}`, a `{` or a string never closed, a tag, a call, a card or a board number that does not parse. Damage
costs only what it damages: each is named with its line, every result that can be scored still is; `--strict`
refuses the file.

The figures are worked out here by hand (Law 77, matchpoints two per result beaten): board 1, dealer North, none
vulnerable: 4S by North taking 10 is +420, taking 9 is -50; board 2, dealer East, NS vulnerable: 3NT by South
taking 9 is +600, taking 10 is +630.
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bidwire_host.formats.pbn import PbnError
from bidwire_host.formats.pbn_import import load
from bidwire_host.formats.score_pbn import decode, score_pbn

BIDWIRE = str(Path(sys.executable).with_name("bidwire"))
DEAL = "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"


def game(board, table, dealer, vul, deal, contract, declarer, tricks, score, auction, play):
    return (f'[Event "Club pairs"]\r\n[Site "?"]\r\n[Date "2024.05.01"]\r\n[Board "{board}"]\r\n'
            f'[West "?"]\r\n[North "?"]\r\n[East "?"]\r\n[South "?"]\r\n[Dealer "{dealer}"]\r\n'
            f'[Vulnerable "{vul}"]\r\n[Deal "{deal}"]\r\n[Scoring "MP"]\r\n[Declarer "{declarer}"]\r\n'
            f'[Contract "{contract}"]\r\n[Result "{tricks}"]\r\n[PairEW "{table}"]\r\n[PairNS "{table}"]\r\n'
            f'[Score "{score}"]\r\n[Auction "{dealer}"]\r\n{auction}\r\n[Play "{play[0]}"]\r\n{play[1]}\r\n*\r\n')


FOUR_SPADES = "1S Pass 3S Pass\r\n4S Pass Pass Pass"
THREE_NT = "Pass 1NT Pass 3NT\r\nPass Pass Pass"
GAMES = [
    game(1, 1, "N", "None", DEAL, "4S", "N", 10, "NS 420", FOUR_SPADES, ("E", "CA C8 C5 C2")),
    game(1, 2, "N", "None", "#", "4S", "N", 9, "EW 50", FOUR_SPADES, ("E", "CA C8 C5 C2")),
    game(2, 1, "E", "NS", DEAL, "3NT", "S", 9, "NS 600", THREE_NT, ("W", "C5 C2 CA C8")),
    game(2, 2, "E", "NS", "#", "3NT", "S", 10, "NS 630", THREE_NT, ("W", "C5 C2 CA C8")),
]
CLEAN = "% PBN 2.1\r\n" + "\r\n".join(GAMES) + "\x1a"  # games apart by an empty line; Ctrl-Z at the end


def scored(report):
    return {(b["board"], r["ns"]): (r["score_ns"], r["mp_ns"]) for b in report["boards"] for r in b["rows"]}


ALL_FOUR = {(1, "1"): (420, 2), (1, "2"): (-50, 0), (2, "1"): (600, 0), (2, "2"): (630, 2)}


def line_of(text, needle):
    return text[:text.index(needle)].count("\n") + 1


def test_hash_deals_and_a_dos_end_of_file_are_read_whole():
    report = score_pbn(decode(CLEAN.encode("latin-1")), "mp")
    assert scored(report) == ALL_FOUR
    assert report["problems"] == [] and report["damage"] == []
    hands = load(CLEAN, strict=True).hands  # --strict takes them too: their meaning is clear
    assert hands[1].deal.pbn("N") == DEAL and hands[2].deal.pbn("N") == DEAL


def damaged(old, new, count=1):
    assert CLEAN.count(old) >= count
    return CLEAN.replace(old, new, count)


CARD_TWICE = damaged(f'[Deal "{DEAL}"]', '[Deal "N:AKQJ.T98.765.432 A98.765.432.KQJT 765.432.AKQJ.T98 '
                                         '432.AKQJ.T98.765"]')
CASES = {
    # name: (text, the damaged line's text, what the message says, board whose hand record is lost)
    "card dealt twice": (CARD_TWICE, '[Deal "N:AKQJ.T98.765.432 A98', "SA is dealt twice", 1),
    "garbage deal": (damaged(f'[Deal "{DEAL}"]', '[Deal "N:QQQ.x.y.z"]'), '[Deal "N:QQQ', "needs 4 hands", 1),
    "stray brace": (damaged('[Result "9"]', '[Result "9"] }{ printed by hand'), "}{ printed", "} without", None),
    "brace never closed": (damaged('[Site "?"]\r\n[Date', '[Site "?"] { comment\r\n[Date'), "{ comment",
                           "never closed", None),
    "tag that cannot be read": (damaged('[Site "?"]', '[Site ?]'), "[Site ?]", "exactly one value", None),
    "string never closed": (damaged('[West "?"]', '[West "?]'), '[West "?]', "not closed", None),
    "card that does not parse": (damaged("CA C8 C5 C2", "CA C8 Z5 C2"), "CA C8 Z5", "not a card", None),
    "call that does not parse": (damaged("4S Pass Pass Pass", "4S Pass Pss Pass"), "4S Pass Pss", "not a call",
                                 None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_damage_costs_only_what_it_damages(name):
    text, where, why, lost_hand = CASES[name]
    report = score_pbn(text, "mp")
    assert scored(report) == ALL_FOUR  # every result is still scored
    assert report["problems"] == []
    line = line_of(text, where)
    assert [d["line"] for d in report["damage"]] == [line] * len(report["damage"]) and report["damage"]
    assert why in report["damage"][0]["problem"]
    imported = load(text, strict=False)
    if lost_hand is not None:  # a bad deal drops that board's hand record, and only that one
        assert lost_hand not in imported.hands and "hand record is left out" in report["damage"][0]["problem"]
        assert imported.hands[3 - lost_hand].deal.pbn("N") == DEAL
    else:
        assert all(h.deal is not None for h in imported.hands.values())
    with pytest.raises(PbnError) as e:
        score_pbn(text, "mp", strict=True)
    assert e.value.line == line


def test_a_ctrl_z_before_more_games_loses_none_of_them():
    """MS-DOS ends a file at Ctrl-Z, but one with games after it has not ended: none is dropped unseen."""
    text = CLEAN[:-1].replace("\r\n\r\n[Event", "\x1a\r\n\r\n[Event", 1)
    line = line_of(text, "\x1a")
    report = score_pbn(text, "mp")
    assert scored(report) == ALL_FOUR
    assert [(d["line"], "Ctrl-Z" in d["problem"]) for d in report["damage"]] == [(line, True)]
    with pytest.raises(PbnError) as e:
        score_pbn(text, "mp", strict=True)
    assert e.value.line == line


def test_a_board_number_that_does_not_parse_drops_that_games_results_only():
    text = CLEAN.replace('[Board "2"]', '[Board "2a"]', 1)
    report = score_pbn(text, "mp")
    # board 2 keeps its other table's result; the game whose number cannot be read is left out
    assert {k: v[0] for k, v in scored(report).items()} == {(1, "1"): 420, (1, "2"): -50, (2, "2"): 630}
    [damage] = report["damage"]
    assert damage["line"] == line_of(text, '[Board "2a"]') and "the game's results are left out" in damage["problem"]


def test_the_command_names_each_damage_with_its_line_and_strict_refuses_the_file(tmp_path):
    path = tmp_path / "real.pbn"
    path.write_bytes(CASES["card dealt twice"][0].encode("latin-1"))
    line = line_of(CASES["card dealt twice"][0], '[Deal "N:AKQJ.T98.765.432 A98')
    proc = subprocess.run([BIDWIRE, "score-pbn", "--method", "mp", str(path)], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert f"{path}: board 1, line {line}: left out: [Deal] SA is dealt twice" in proc.stderr
    assert scored(json.loads(proc.stdout)) == ALL_FOUR
    strict = subprocess.run([BIDWIRE, "score-pbn", "--strict", "--method", "mp", str(path)], capture_output=True,
                            text=True, timeout=60)
    assert strict.returncode == 2 and strict.stdout == "" and f"line {line}: " in strict.stderr
