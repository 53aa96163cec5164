"""PBN 2.1 syntax: tags, escapes, comments, inheritance, Auction/Play sections, tables, deals; errors name the line."""
import pytest
from endplay.parsers import pbn as endplay_pbn
from endplay.types import Deal as EndplayDeal
from hypothesis import given, settings
from hypothesis import strategies as st

from bidwire_host.formats.pbn import PbnError, parse, parse_deal
from bidwire_host.formats.pbn_import import load

DEAL = "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"


def one(text):
    [game] = parse(text).games
    return game


def test_tags_escapes_and_comments():
    f = parse('% PBN 2.1\n% EXPORT\n[Event "Club \\"Monday\\" \\\\ pairs"] ; a comment\n'
              '{ a comment\n over two lines [Board "9"] }\n[Board "3"] [Dealer "S"]\n')
    assert f.version == "2.1" and f.export
    [game] = f.games
    assert game.get("Event") == 'Club "Monday" \\ pairs'
    assert game.get("Board") == "3" and game.get("Dealer") == "S"  # the [Board "9"] was inside a comment


def test_a_tag_may_span_lines_in_import_format():
    assert one('[Event\n  "x"\n]\n').get("Event") == "x"


def test_games_are_separated_by_semi_empty_lines():
    f = parse('[Board "1"]\n \t\n[Board "2"]\n\n\n[Board "3"]\n')
    assert [g.get("Board") for g in f.games] == ["1", "2", "3"]
    assert [g.line for g in f.games] == [1, 3, 6]


def test_repeated_tag_is_ignored_in_import_format():
    assert one('[Board "1"]\n[Board "2"]\n').get("Board") == "1"


def test_tag_value_inheritance_hash_and_double_hash():
    f = parse('[Event "##Club night"]\n[Site "Hall"]\n[Board "1"]\n\n[Site "#"]\n[Board "2"]\n\n[Board "3"]\n')
    assert [g.get("Event") for g in f.games] == ["Club night"] * 3
    assert [g.get("Site") for g in f.games] == ["Hall", "Hall", None]


def test_hash_is_forbidden_for_the_results_tags():
    with pytest.raises(PbnError, match=r"line 2: \[Declarer\] may not inherit"):
        parse('[Board "1"]\n[Declarer "#"]\n')


def test_hash_deal_copies_the_previous_games_deal_as_real_files_write_it():
    """Issue 27: §4.8 forbids it, but files with a board's two games write [Deal "#"] on the second; the meaning
    is clear."""
    deal = "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"
    first, second = parse(f'[Board "1"]\n[Dealer "N"]\n[Deal "{deal}"]\n\n[Board "1"]\n[Dealer "#"]\n'
                          f'[Deal "#"]\n').games
    assert second.get("Deal") == deal and second.get("Dealer") == "N"


def test_auction_with_notes_suffixes_nags_and_all_pass():
    game = one('[Dealer "E"]\n[Auction "E"]\n1C =1= X 1NT! $5 2C=2=\nAP\n[Note "1:could be short"]\n'
               '[Note "2:Stayman"]\n')
    a = game.auction
    assert a.first == "E" and a.complete
    assert [c.call for c in a.calls] == ["1C", "X", "1NT", "2C", "Pass", "Pass", "Pass"]
    assert a.calls[0].note == 1 and a.calls[2].suffix == "!" and a.calls[2].nags == (5,)
    assert a.calls[3].note == 2 and a.calls[3].line == 3
    assert game.notes["auction"] == {1: "could be short", 2: "Stayman"}


def test_auction_in_columns_from_west_with_hyphens_and_an_unfinished_end():
    a = one('[Auction "W"]\n- - 1H Pass\n2H *\n').auction
    assert [c.call for c in a.calls] == ["1H", "Pass", "2H"] and not a.complete


def test_passed_out_auction_and_irregularity_marks():
    assert one('[Auction "N"]\nPass Pass Pass Pass\n').auction.complete
    a = one('[Auction "W"]\n1D ^I 1C Pass\n').auction
    assert a.calls[1].call == "1C" and a.calls[1].irregular == "^I"


def test_table_columns_and_quoted_values():
    game = one('[ScoreTable "Rank\\2R;-PairId_NS\\2R;Contract\\4L;Names_NS;Score_NS"]\n'
               ' 1  3 4S   "Smith - Jones" "670"\n 2 12 -    "A;B"  -\n')
    t = game.tables["ScoreTable"]
    assert [(c.name, c.width, c.align, c.order) for c in t.columns] == [
        ("Rank", 2, "R", None), ("PairId_NS", 2, "R", "-"), ("Contract", 4, "L", None), ("Names_NS", None, None, None),
        ("Score_NS", None, None, None)]
    assert t.rows[0] == (2, {"Rank": "1", "PairId_NS": "3", "Contract": "4S", "Names_NS": "Smith - Jones",
                             "Score_NS": "670"})
    assert t.rows[1][1]["Score_NS"] == "-"


def test_deal_parsing_normalises_and_matches_endplay():
    d = parse_deal("w:" + "2345.AKQJ.T98.76 - - -".lower())
    assert d.hands["W"] == ("5432", "AKQJ", "T98", "76") and d.hands["N"] is None
    full = parse_deal(DEAL)
    assert full.pbn("E").startswith("E:T98.765.432.AKQJ ")
    # The oracle reads our text with East first as the same four hands.
    assert EndplayDeal(full.pbn("E")).to_pbn() == EndplayDeal(DEAL).to_pbn()


@pytest.mark.parametrize("text,line,words", [
    ('[Event "x"]\nthis is junk\n', 2, "unexpected this"),
    ('[Event "x"\n[Site "y"]\n', 1, "not closed with ]"),
    ('[Event "x"]\n[Site "unterminated]\n', 2, "not closed with \""),
    ('[Event "x"]\n\n[Board "1"\n', 3, "before the end of the file"),
    ('[Event x]\n', 1, "exactly one value in double quotes"),
    ('[1Event "x"]\n', 1, "must start with a name"),
    ('[Board "1"]\n]\n', 2, "] without a tag"),
    ('[Board "1"]\n{ never closed\n', 2, "never closed"),
    ('[Board "1"]\n[Auction "N"]\n1C }\n', 3, "} without an opening {"),
    ('[Board "1"]\n[Auction "N"]\n1C 8S\n', 3, '"8S" is not a call'),
    ('[Board "1"]\n[Auction "Q"]\n1C\n', 2, "first caller"),
    ('[Board "1"]\n[Auction "N"]\n1C =40=\n', 3, "note index is 1-32"),
    ('[Board "1"]\n[Auction "N"]\n1C Pass\n[Note "one: two"]\n', 4, "a note is written"),
    ('[Board "1"]\n[Play "W"]\nSA SZ\n', 3, '"SZ" is not a card'),
    ('[Board "1"]\n[ScoreTable "A\\2R;B\\2R"]\n 1  2\n 1  2  3\n', 4, "3 values for 2 columns (A, B)"),
    ('[Board "1"]\n[ScoreTable "A;;B"]\n', 2, "is not a column name"),
])
def test_malformed_pbn_gets_an_error_naming_the_line(text, line, words):
    with pytest.raises(PbnError) as e:
        parse(text)
    assert e.value.line == line
    assert str(e.value).startswith(f"line {line}: ") and words in str(e.value)


@pytest.mark.parametrize("deal,words", [
    ("N:AKQ.JT9.876.5432 AKQ.JT9.876.5432 - -", "SA is dealt twice"),
    ("AKQ.JT9.876.5432 - - -", "must start with the first hand's seat"),
    ("N:AKQ.JT9.876 - - -", "needs 4 suits"),
    ("N:AKQ.JT9.876.5432 - -", "needs 4 hands"),
    ("N:AKQ.JT9.876.543X - - -", "X is not a rank"),
    ("N:AKQJT98765432... .AKQ.. - -", "same number of cards"),
])
def test_bad_deals_name_the_line_of_the_deal_tag(deal, words):
    with pytest.raises(PbnError, match=f"line 4: .*{words}"):
        parse_deal(deal, 4)


def test_a_partial_deal_is_fine():
    assert parse_deal("N:AKQ.JT9.876.5432 - - -").hands["E"] is None


def test_endplay_written_pbn_is_read():
    # The oracle writes a game (endplay's encoder); we must read its tags, deal, contract and auction.
    from endplay.types import Bid, Board, Contract, Player, Vul

    b = Board(deal=EndplayDeal(DEAL), board_num=7, vul=Vul.both, dealer=Player.north, contract=Contract("4SN+1"))
    b.auction = [Bid(c) for c in ("1S", "P", "4S", "P", "P", "P")]
    text = endplay_pbn.dumps([b])
    game = one(text)
    assert game.get("Board") == "7" and game.get("Vulnerable") == "All" and game.get("Contract") == "4S"
    assert parse_deal(game.get("Deal")).hands == parse_deal(DEAL).hands
    assert [c.call for c in game.auction.calls] == ["1S", "Pass", "4S", "Pass", "Pass", "Pass"]


FRAGMENTS = ['[Board "1"]', '[Board "x"]', '[Contract "4S"]', '[Declarer "N"]', '[Result "10"]', '[Score "NS 420"]',
             '[Vulnerable "All"]', '[Deal "N:AKQ.JT9.876.5432 - - -"]', '[Auction "N"]', "1C", "Pass", "AP", "=1=",
             '[Note "1:x"]', '[ScoreTable "PairId_NS;Contract;Declarer;Result;Score_NS;Multiplicity"]',
             "1 4S N 10 420 1", "- - - - ^A+ 1", "2 3NT S = - 2", "{", "}", ";", '"', "[", "]", "%", "\n", "\n\n",
             " ", "^", "-", "?", "#", "##x", "\x00", "é"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=40))
def test_any_text_is_read_or_refused_with_a_pbn_error(parts):
    # Junk gets a PbnError naming the line, never a traceback from deeper down.
    try:
        load(" ".join(parts))
    except PbnError as e:
        assert str(e).startswith("line ")
