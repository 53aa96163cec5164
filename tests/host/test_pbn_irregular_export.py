"""A PBN every reader replays (issue 27, item 3): the demo's session, whose tables accept insufficient bids (Law 27)
and calls out of rotation (Law 29), exported by the collector and read from the files by endplay, bridge-utils and
bridgebots. Each recorded call must come back at the seat that made it, and the declarer the reader's seats give
(export_readers_kit.declarer_of, the test's own rule, not bidwire's) must be the one the table played. The
standard's §3.9 marks (`irregular=marks`) are measured too: what docs/scorer.md's table says each reader does.
"""
import html
import json
import logging
import re
import subprocess
from pathlib import Path

import pytest
from bridge_utils.pbn2html import pbn2html
from bridgebots.deal_enums import Direction
from bridgebots.pbn import parse_pbn
from endplay.parsers import pbn as endplay_pbn
from endplay.types import Contract
from export_readers_kit import declarer_of, play_demo

from bidwire_host.formats.pbn import parse

SKIPPED = "did not call"  # what the default form's note on a skipped player's Pass says
WNES = "WNES"


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return play_demo(tmp_path_factory.mktemp("demo"))


def recorded_calls(demo, game_tags):
    """The unit's recorded calls of a game, [(seat, call)] ("P" as "Pass", "1N" as "1NT")."""
    inputs = demo["recorded"][int(game_tags["Table"]), int(game_tags["Board"])]
    return [(t.split(":")[0], {"P": "Pass"}.get(t.split(":")[1], t.split(":")[1])) for t in inputs]


def games(path):
    """The games of a PBN file as text, each with its tags {name: value}."""
    text = path.read_text(encoding="utf-8")
    out = []
    for game in text.split("\n\n"):
        tags = dict(re.findall(r'^\[(\w+) "((?:[^"\\]|\\.)*)"\]', game, re.M))
        if "Auction" in tags:
            out.append((game, tags))
    return out


def test_the_demo_session_has_both_irregularities_accepted(demo):
    """The readers' tests mean something only if the session holds what breaks readers."""
    out_of_rotation = insufficient = 0
    for (_, board), inputs in demo["recorded"].items():
        before_dealer = "WNES"[(board - 1) % 4]  # Law 2: board 1's dealer is North, board 2's East...
        seats = [before_dealer] + [t.split(":")[0] for t in inputs]
        out_of_rotation += any(seat_after(a, 1) != b for a, b in zip(seats, seats[1:], strict=False))
        bids = [t.split(":")[1] for t in inputs if t.split(":")[1][0].isdigit()]
        levels = [(int(b[0]), "CDHSN".index(b[1])) for b in bids]
        insufficient += any(b <= a for a, b in zip(levels, levels[1:], strict=False))
    assert out_of_rotation >= 2 and insufficient >= 2


def test_default_form_writes_notes_and_no_irregularity_mark(demo):
    text = (demo["dir"] / "bidwire.pbn").read_text(encoding="utf-8")
    assert "^S" not in text and "^I" not in text
    assert re.search(r'\[Note "\d+:insufficient bid, accepted \(Law 27 A1\)"\]', text)
    assert re.search(r'\[Note "\d+:(North|East|South|West) did not call: the next call, made out of rotation, was '
                     r'accepted \(Law 29 A\)"\]', text)


def test_every_game_of_the_demo_carries_each_calls_thinking_time(demo):
    """PBN 2.1 §5.4: the AuctionTimeTable after the Auction section, one row per call token in its order (a noted
    Pass for a skipped player included: "-", nobody pressed it); the demo's units measure every call (the readers'
    tests below read this same file, tables and all)."""
    played = games(demo["dir"] / "bidwire.pbn")
    assert played
    for game, tags in played:
        lines = game.replace("\r", "").split("\n")
        start = lines.index(f'[Auction "{tags["Auction"]}"]')
        end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("["))
        tokens = re.sub(r"=\d+=", " ", " ".join(lines[start + 1:end])).replace("*", " ").split()
        timed = [i for i, x in enumerate(lines) if x.startswith("[AuctionTimeTable ")]
        assert timed, (tags["Board"], tags["Table"], game)
        at = timed[0]
        rows = []
        for line in lines[at + 1:]:
            if line.startswith("[") or not line.strip():
                break
            rows.append(line.split())
        assert at >= end and len(rows) == len(tokens), (tags["Board"], tags["Table"])
        assert all(re.fullmatch(r"\d+(:\d\d){0,2}|-", t) for t, _ in rows), rows


@pytest.mark.parametrize("name", ["bidwire.pbn", "bidwire-marks.pbn"])
def test_no_string_in_the_export_has_an_invalid_escape(demo, name):
    """PBN 2.1 §3.2: inside a string a backslash is followed by a quote or another backslash, nothing else; a table
    header is the exception, each column's width "a backslash followed by an integer" (§3.8): `Score\\4R`, one
    backslash, as the published archives and the reference verifier have it."""
    lines = (demo["dir"] / name).read_text(encoding="utf-8").splitlines()
    headers = [x for x in lines if re.match(r"\[\w+Table ", x)]
    assert any(x.startswith("[OptimumResultTable ") for x in headers)  # the analysis is there to check
    assert any(x.startswith("[ScoreTable ") for x in headers)
    assert any(x.startswith("[TotalScoreTable ") for x in headers)
    column = r"[A-Za-z_]+\\\d+[LR]?"
    assert [x for x in headers if not re.fullmatch(rf'\[\w+Table "{column}(;{column})*"\]', x)] == []
    strings = re.findall(r'"((?:[^"\\]|\\.)*)"', "\n".join(x for x in lines if x not in headers))
    assert len(strings) >= 18 * 15  # at least the 15 mandatory tags of each of the 18 games
    bad = [s for s in strings if set(re.findall(r"\\(.)", s)) - {'"', "\\"}]  # each escape, left to right
    assert bad == []


def seat_after(seat, k):
    """The k-th seat from `seat`, clockwise."""
    return "NESW"[("NESW".index(seat) + k) % 4]


def call_name(bid):
    """endplay's Bid as PBN names it: Pass, X, XX, 1NT, 4S."""
    text = str(bid).rstrip("!*").replace("♠", "S").replace("♥", "H").replace("♦", "D").replace("♣", "C")
    return {"P": "Pass", "Pass": "Pass", "D": "X", "R": "XX", "X": "X", "XX": "XX"}.get(text, text)


def test_endplay_reads_the_default_form_with_each_call_at_its_seat_and_the_declarer(demo):
    with open(demo["dir"] / "bidwire.pbn", encoding="utf-8") as f:
        boards = endplay_pbn.load(f)
    played = [b for b in boards if b.auction]
    assert len(played) == len(demo["recorded"]) == 18
    tags = [t for _, t in games(demo["dir"] / "bidwire.pbn")]
    skipped_seen = 0
    for board, game_tags in zip(played, tags, strict=True):
        assert board.board_num == int(game_tags["Board"])
        seated = [(seat_after(board.dealer.abbr, k), call_name(b)) for k, b in enumerate(board.auction)]
        skipped = [k for k, b in enumerate(board.auction) if SKIPPED in (b.announcement or "")]
        skipped_seen += len(skipped)
        assert all(seated[k][1] == "Pass" for k in skipped)
        calls = [c for k, c in enumerate(seated) if k not in skipped]
        expected = recorded_calls(demo, game_tags)
        assert calls == expected
        declarer = declarer_of(expected)
        assert declarer_of(seated) == declarer
        if declarer is not None:
            assert Contract.from_auction(board.dealer, board.auction).declarer.abbr == declarer
            assert board.contract.declarer.abbr == declarer  # the Declarer tag
    assert skipped_seen >= 2


def bridge_utils_seated(game):
    """bridge-utils (mdbridge's reader: get_from_pbn and pbn_html_auction) lays the calls out in columns W N E S
    from the Auction tag's seat; the seat of a call is its column."""
    page = pbn2html.pbn_html_auction(pbn2html.get_from_pbn(game))
    cells = re.findall(r"<td class=bcauction style[^>]*>(.*?)</td>", page, re.S)
    out = []
    for k, cell in enumerate(cells):
        text = html.unescape(re.sub(r"<[^>]+>", "", cell)).replace("\u2009", "")
        text = text.replace("♠", "S").replace("♥", "H").replace("♦", "D").replace("♣", "C")
        if text:
            out.append((WNES[k % 4], text))
    return out


def test_bridge_utils_reads_the_default_form_with_each_call_at_its_seat(demo):
    read = 0
    for game, tags in games(demo["dir"] / "bidwire.pbn"):
        seated = bridge_utils_seated(game)
        expected = recorded_calls(demo, tags)
        # bridge-utils drops the notes: a skipped player's Pass is a pass at his seat, which changes no other seat
        assert [c for c in seated if c[1] != "Pass"] == [c for c in expected if c[1] != "Pass"]
        assert declarer_of(seated) == declarer_of(expected) == (tags["Declarer"] or None)
        read += 1
    assert read == 18


def test_bridge_utils_whole_file_page_wants_a_lead_card_which_a_unit_does_not_keep(demo, tmp_path):
    """What docs/scorer.md's table says: bridge-utils' pbn2html (a page of the whole file) reads the lead card from
    the Play section, which bidwire has not got (a unit records the lead's suit), and stops at the first game."""
    path = tmp_path / "bidwire.pbn"
    path.write_bytes((demo["dir"] / "bidwire.pbn").read_bytes())
    with pytest.raises(IndexError):
        pbn2html.pbn2html(str(path))


def test_bridgebots_reads_the_default_form_with_each_call_at_its_seat(demo, caplog):
    with caplog.at_level(logging.WARNING):
        deals = parse_pbn(demo["dir"] / "bidwire.pbn")
    # bridgebots drops a passed-out board (it wants a tricks result, and PBN gives none for "Pass"), saying so;
    # every other record must be read whole.
    passed_out = sum(1 for _, tags in games(demo["dir"] / "bidwire.pbn") if tags.get("Contract") == "Pass")
    malformed = [r.getMessage() for r in caplog.records if "Malformed" in r.getMessage()]
    assert all("Missing tricks result" in m and "Pass Pass Pass Pass" in m for m in malformed), malformed
    assert len(malformed) == passed_out
    records = [(d, b) for d in deals for b in d.board_records]
    assert len(records) == 18 - passed_out
    expected_by_names = {}
    for _, tags in games(demo["dir"] / "bidwire.pbn"):
        expected_by_names[tags["Dealer"], tags["North"], tags["East"]] = recorded_calls(demo, tags)
    for deal, b in records:
        dealer = deal.deal.dealer.name[0]
        seated = [(seat_after(dealer, k), {"PASS": "Pass"}.get(c, c)) for k, c in enumerate(b.bidding_record)]
        skipped = {m.bid_index for m in b.bidding_metadata or [] if SKIPPED in (m.explanation or "")}
        calls = [c for k, c in enumerate(seated) if k not in skipped]
        # bridgebots keeps no board number: a table's players and the dealer tell its game (a pair meets another
        # once, on boards with different dealers)
        expected = expected_by_names[dealer, b.names[Direction.NORTH], b.names[Direction.EAST]]
        assert calls == expected
        assert declarer_of(seated) == declarer_of(expected)
        if declarer_of(expected):
            assert b.declarer.name[0] == declarer_of(expected)


def test_the_standard_marks_stay_available_and_what_each_reader_does_with_them(demo):
    """`irregular=marks`: §3.9 as written. bidwire's own reader replays them; endplay refuses the whole file;
    bridge-utils fails on `^I`; bridgebots reads, drops `^S`, and so puts the calls after it on the wrong seats."""
    path = demo["dir"] / "bidwire-marks.pbn"
    text = path.read_text(encoding="utf-8")
    assert "^S" in text and "^I" in text and "did not call" not in text
    for game in parse(text).games:
        if game.auction is None:
            continue
        tags = {"Table": game.get("Table"), "Board": game.get("Board")}
        read = [(c.seat, c.call) for c in game.auction.calls if c.call != "^S"]
        assert read == recorded_calls(demo, tags)
    with pytest.raises(ValueError), open(path, encoding="utf-8") as f:
        endplay_pbn.load(f)
    failed = shown = 0
    for game, _ in games(path):
        if "^I" in game:
            with pytest.raises(KeyError):
                bridge_utils_seated(game)
            failed += 1
        elif "^S" in game:  # shown as a call (a spade bid at level "^"), holding a seat
            shown += "^S" in [call for _, call in bridge_utils_seated(game)]
    assert failed >= 2 and shown >= 2
    wrong = 0
    expected = {(t["Dealer"], t["North"], t["East"]): recorded_calls(demo, t) for _, t in games(path)}
    for deal in parse_pbn(path):
        for b in deal.board_records:
            if "^S" in b.raw_bidding_record:
                seated = [(seat_after(deal.deal.dealer.name[0], k), {"PASS": "Pass"}.get(c, c))
                          for k, c in enumerate(b.bidding_record)]
                recorded = expected[deal.deal.dealer.name[0], b.names[Direction.NORTH], b.names[Direction.EAST]]
                wrong += [c for c in seated if c[1] != "Pass"] != [c for c in recorded if c[1] != "Pass"]
    assert wrong >= 2


def test_a_turn_skipped_after_two_passes_still_replays_in_endplay():
    """docs/scoring.md's odd case: North 1H, two passes, North 2H in West's turn, accepted (Law 29 A): the written
    auction shows three passes after 1H, and endplay, reading the game, still finds 2H by North."""
    from bidwire_host.formats.pbn_export import auction_lines
    from bidwire_host.formats.publish import AuctionCall

    calls = [AuctionCall(c, seat=s) for s, c in (("N", "1H"), ("E", "P"), ("S", "P"), ("N", "2H"), ("E", "P"),
                                                  ("S", "P"), ("W", "P"))]
    lines = auction_lines("N", calls)
    assert lines[1:3] == ["1H Pass Pass Pass =1=", "2H Pass Pass Pass"]
    game = "\n".join(['[Board "1"]', '[Dealer "N"]', '[Contract "2H"]', '[Declarer "N"]', *lines]) + "\n"
    (board,) = endplay_pbn.loads(game)
    assert Contract.from_auction(board.dealer, board.auction).declarer.abbr == "N"
    assert str(Contract.from_auction(board.dealer, board.auction)).startswith("2♥")


READERS = Path(__file__).parents[1] / "readers"  # the npm packages the tests run (make npm-readers)


def npm_pbn(path):
    """The npm registry's `pbn` package (1.6.1) reading a file: its games' tags, auction tokens and notes."""
    out = subprocess.run(["node", str(READERS / "read_pbn.js"), str(path)], capture_output=True, text=True,
                         check=True, timeout=60)
    return json.loads(out.stdout)


def test_the_npm_pbn_reader_takes_every_game_with_each_call_and_note(demo):
    """docs/scorer.md's readers table: npm's `pbn` reads the default form without an error, every game with its
    tags, and each call as a token beside the notes; a skipped player's Pass is the one its note says did not call."""
    read = npm_pbn(demo["dir"] / "bidwire.pbn")
    assert read["error"] is None
    played = [g for g in read["games"] if g["auction"]]
    assert len(played) == len(demo["recorded"]) == 18
    skipped_seen = 0
    for g in played:
        tags = g["tags"]
        notes = dict(n.split(":", 1) for n in g["notes"])
        calls, k = [], 0
        dealer = tags["Auction"]
        for i, token in enumerate(g["auction"]):
            if re.fullmatch(r"=\d+=", token):
                continue
            after = g["auction"][i + 1] if i + 1 < len(g["auction"]) else ""
            note = notes.get(after.strip("="), "") if re.fullmatch(r"=\d+=", after) else ""
            if SKIPPED in note:
                skipped_seen += 1
            else:
                calls.append((seat_after(dealer, k), token))
            k += 1
        assert calls == recorded_calls(demo, tags)
        contract, declarer, _ = demo["contracts"][int(tags["Table"]), int(tags["Board"])]
        assert (tags["Contract"], tags["Declarer"] or None) == (contract, declarer)
    assert skipped_seen >= 2
