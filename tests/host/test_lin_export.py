"""A LIN file per board (issue 27, item 4): BBO's hand viewer format, exported by the collector for the demo's
session and read back by endplay's LIN reader. Each file holds one line per table that played the board: its
players' names, the deal, the auction with each call at the seat that made it, and the tricks taken. The
expectations come from outside the exporter: the deal from the hand-record file read by endplay's PBN reader, the
names from the event file's pairs (a pair's first player sits North or East), the calls from what each unit
recorded, the declarer from the test's own rule (export_readers_kit.declarer_of).
"""
import zipfile

import pytest
from endplay.parsers import lin as endplay_lin
from endplay.parsers import pbn as endplay_pbn
from export_readers_kit import declarer_of, play_demo

SEATS = "NESW"


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return play_demo(tmp_path_factory.mktemp("demo"))


def call_name(bid):
    text = str(bid).rstrip("!*").replace("♠", "S").replace("♥", "H").replace("♦", "D").replace("♣", "C")
    return {"P": "Pass", "D": "X", "R": "XX"}.get(text, text)


def test_one_lin_file_per_board_read_back_by_endplay(demo):
    with open(demo["hands"], encoding="utf-8") as f:
        deals = {b.board_num: b.deal.to_pbn() for b in endplay_pbn.load(f)}
    section = demo["event"].sessions[0].sections[0]
    pairs = {(p.line, p.number): p for p in section.pairs}
    with zipfile.ZipFile(demo["dir"] / "bidwire-lin.zip") as z:
        files = {name: z.read(name).decode("utf-8") for name in z.namelist()}
    assert sorted(files) == [f"board-{b}.lin" for b in range(1, 7)]
    seen = set()
    for name, text in files.items():
        board_no = int(name[len("board-"):-len(".lin")])
        boards = endplay_lin.loads(text)
        assert len(boards) == 3  # the three tables that played it
        for board in boards:
            assert board.board_num == board_no
            assert board.deal.to_pbn() == deals[board_no]
            table = next(t for (t, b), (ns, ew) in demo["pairs"].items()
                         if b == board_no and pairs["NS", ns].players[0].name == board.info["North"])
            ns, ew = demo["pairs"][table, board_no]
            assert (board.info["North"], board.info["South"]) == tuple(p.name for p in pairs["NS", ns].players)
            assert (board.info["East"], board.info["West"]) == tuple(p.name for p in pairs["EW", ew].players)
            dealer = "NESW"[(board_no - 1) % 4]  # Law 2
            assert board.dealer.abbr == dealer
            seated = [(SEATS[(SEATS.index(dealer) + k) % 4], call_name(b)) for k, b in enumerate(board.auction)]
            calls = [c for c, b in zip(seated, board.auction, strict=True)
                     if "did not call" not in (b.announcement or "")]
            expected = [(t.split(":")[0], {"P": "Pass"}.get(t.split(":")[1], t.split(":")[1]))
                        for t in demo["recorded"][table, board_no]]
            assert calls == expected
            contract, declarer, tricks = demo["contracts"][table, board_no]
            assert declarer_of(seated) == declarer_of(expected) == declarer
            if declarer is not None:
                assert board.contract.declarer.abbr == declarer
                assert board.contract.level + 6 + board.contract.result == tricks  # mc: the tricks taken
            seen.add((table, board_no))
    assert len(seen) == 18


def test_the_claim_comes_after_the_play_as_bbo_writes_it(demo):
    # issue 40 item 4: `mc` before `pg||` made a LIN reader fail on 36 of 50 files
    lines = [line for f in sorted(demo["dir"].glob("bidwire-board-*.lin"))
             for line in f.read_text(encoding="utf-8").splitlines()]
    claimed = [line for line in lines if "|mc|" in line]
    assert claimed and all(line.index("|pg||") < line.index("|mc|") and line.endswith("|") for line in claimed)


def test_bridgebots_lin_reader_wants_a_play_record_which_a_unit_does_not_keep(demo):
    """What docs/scorer.md's table says of bridgebots 0.0.12's LIN reader: it refuses a deal without its play."""
    from bridgebots.lin import parse_single_lin

    with pytest.raises(ValueError, match="Missing play record"):
        parse_single_lin(demo["dir"] / "bidwire-board-3.lin")


def test_one_board_alone_and_what_is_refused(demo):
    one = (demo["dir"] / "bidwire-board-3.lin").read_text(encoding="utf-8")
    with zipfile.ZipFile(demo["dir"] / "bidwire-lin.zip") as z:
        assert one == z.read("board-3.lin").decode("utf-8")
    status, body = demo["refused"]["/api/v1/export/lin?board=99"]
    assert status == 422 and "board 99" in str(body)
    status, body = demo["refused"]["/api/v1/export/pbn?irregular=caret"]
    assert status == 422 and "notes, marks" in str(body)
    status, body = demo["refused"]["/api/v1/export/pbn?board=3"]
    assert status == 422 and "only LIN" in str(body)
