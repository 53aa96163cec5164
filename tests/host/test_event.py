"""The event model (issue 4, part 4): the event file, the assign commands of a round, the Law 15 check of a
board start, and hand records (docs/movements.md)."""
import json
import re
from pathlib import Path

import pytest

from bidwire_host.collector import commands
from bidwire_host.event import files as event_files
from bidwire_host.event import model as ev
from bidwire_host.event import seating
from bidwire_host.event.model import EventError

DOC = Path(__file__).resolve().parents[2] / "docs" / "movements.md"
DEAL = "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"
PBN = f'[Event "Tuesday"]\n[Board "1"]\n[Dealer "N"]\n[Vulnerable "None"]\n[Deal "{DEAL}"]\n\n' \
      '[Board "2"]\n[Dealer "E"]\n[Vulnerable "NS"]\n[Deal "N:- - - -"]\n'


def doc_example():
    """The event file shown in docs/movements.md, so the documentation cannot drift from the code."""
    text = DOC.read_text(encoding="utf-8")
    block = re.search(r"## Example\s+```json\n(.*?)```", text, re.S).group(1)
    return json.loads(block)


def mitchell_3(**section):
    return {"name": "Club", "sessions": [{"name": "S1", "sections": [
        {"name": "A", "movement": {"type": "mitchell", "tables": 3}, "boards_per_round": 2,
         "pairs": [{"number": n, "line": line} for line in ("NS", "EW") for n in (1, 2, 3)], **section}]}]}


def error(data):
    with pytest.raises(EventError) as e:
        ev.from_dict(data)
    return str(e.value)


# --- the event file ---------------------------------------------------------------------------------------------

def test_the_documented_example_loads_and_round_trips(tmp_path):
    path = tmp_path / "event.json"
    path.write_text(json.dumps(doc_example()), encoding="utf-8")
    event = event_files.load(path)
    a, b = event.sessions[0].sections
    assert a.pairs[0].players[0].name == "Ann Smith" and a.pairs[1].players[0].id == 1003
    assert b.movement_plan().title == "3-table Howell" and b.round_boards() == 3
    event_files.save(event, tmp_path / "copy.json")
    assert json.loads((tmp_path / "copy.json").read_text(encoding="utf-8")) == doc_example()
    assert not (tmp_path / "copy.json.tmp").exists()


def test_the_documented_assign_command():
    event = ev.from_dict(doc_example())
    first = seating.assignments(event, 1)[0]
    text = DOC.read_text(encoding="utf-8")
    shown = json.loads(re.search(r"among others:\s+```json\n(.*?)```", text, re.S).group(1))
    assert first == shown


def test_assignments_of_a_3_table_mitchell():
    event = ev.from_dict(mitchell_3())
    got = seating.assignments(event, 2)
    assert [(a["table"], a["boards"], a["ns"], a["ew"]) for a in got] == [(1, [3, 4], 1, 3), (2, [5, 6], 2, 1),
                                                                            (3, [1, 2], 3, 2)]
    assert got[0] == {"type": "assign", "section": "A", "table": 1, "round": 2, "boards": [3, 4], "ns": 1, "ew": 3,
                      "move": "NS stay         EW to table 2   Boards: table 3"}
    # The unit cuts the move into 16-character lines (MOVE screen): each line is one instruction.
    move = got[0]["move"]
    assert [move[i:i + 16].rstrip() for i in range(0, len(move), 16)] == ["NS stay", "EW to table 2",
                                                                          "Boards: table 3"]
    assert {a["move"] for a in seating.assignments(event, 3)} == {"End of session  Thank you"}
    with pytest.raises(EventError, match="round 4: no section of the session plays that round"):
        seating.assignments(event, 4)


def test_assign_commands_are_what_the_collector_accepts():
    for data in (doc_example(), mitchell_3()):
        event = ev.from_dict(data)
        for r in range(1, 6):
            for a in seating.assignments(event, r) if r <= 3 else []:
                assert commands.check(a) == a


def test_phantom_table_gets_no_assign_but_a_sit_out_message():
    data = mitchell_3()
    data["sessions"][0]["sections"][0]["pairs"].pop(2)  # NS 3 is missing
    event = ev.from_dict(data)
    assert [a["table"] for a in seating.assignments(event, 1)] == [1, 2]
    assert seating.sit_outs(event, 1) == [{"section": "A", "table": 3, "round": 1, "pair": 3,
                                      "text": "EW 3: sit out round 1, then table 1 EW"}]
    assert seating.sit_outs(event, 2)[0]["pair"] == 2
    # EW 2 is told where it goes after round 1: to the sit-out table.
    assert seating.assignments(event, 1)[1]["move"] == "NS stay         EW sit out      Boards: table 1"


def test_team_match_assignments_use_team_numbers():
    event = ev.from_dict({"name": "League", "sessions": [{"name": "Match 3", "sections": [
        {"name": "M3", "movement": {"type": "teams", "rounds": 2}, "boards": 16, "teams": [
            {"number": 7, "name": "Lions", "ns": [{"name": "A"}, {"name": "B"}], "ew": [{"name": "C"}, {"name": "D"}]},
            {"number": 12, "name": "Tigers"}]}]}]})
    got = seating.assignments(event, 1)
    assert [(a["table"], a["ns"], a["ew"], a["boards"]) for a in got] == [(1, 7, 12, list(range(1, 9))),
                                                                           (2, 12, 7, list(range(9, 17)))]
    assert got[0]["move"] == "NS stay         EW stay         Boards: table 2"
    assert "Lions (NS) v Tigers (EW)" in seating.describe(event)


def test_new_event_with_a_phantom_and_describe():
    event = ev.new_event("Club", {"type": "mitchell", "tables": 4, "even": "relay"}, boards=24, pairs=7)
    section = event.sessions[0].sections[0]
    assert [(p.line, p.number) for p in section.pairs] == [("NS", 1), ("NS", 2), ("NS", 3), ("EW", 1), ("EW", 2),
                                                           ("EW", 3), ("EW", 4)]
    text = seating.describe(event)
    assert "Section A: 4-table relay Mitchell: 4 rounds of 6 boards (boards 1-24, 4 sets)" in text
    assert "table 4: phantom v EW 4, boards 1-6 (shared with table 1)" in text
    assert "relay: boards 19-24" in text
    howell = ev.new_event("Club", {"type": "howell", "tables": 4}, boards_per_round=3, pairs=7)
    assert [p.number for p in howell.sessions[0].sections[0].pairs] == list(range(1, 8))
    assert [a["table"] for a in seating.assignments(howell, 1)] == [2, 3, 4]  # pair 8 (stationary) is the phantom
    with pytest.raises(EventError, match=r"pairs: a 4-table Howell is for 8 pairs, or 7 with a phantom; not 5"):
        ev.new_event("Club", {"type": "howell", "tables": 4}, boards_per_round=3, pairs=5)


def test_several_sessions_need_a_name():
    data = mitchell_3()
    data["sessions"].append({**data["sessions"][0], "name": "S2"})
    event = ev.from_dict(data)
    with pytest.raises(EventError, match=r"the event has 2 sessions: say which one \(S1, S2\)"):
        seating.assignments(event, 1)
    assert len(seating.assignments(event, 1, session="S2")) == 3
    with pytest.raises(EventError, match="no session 'S3'"):
        seating.assignments(event, 1, session="S3")


# --- Law 15: the board start against the movement ------------------------------------------------------------

def test_board_start_as_the_movement_says_is_fine():
    event = ev.from_dict(mitchell_3())
    assert seating.check_board_start(event, 2, 2, 6, 2, 1) is None
    assert seating.check_board_start(event, 2, 2, 5, "2", "1", section="A") is None
    assert seating.check_board_start(event, 2, 2, 5, None, None) is None  # pairs not said: only the board is checked


def test_wrong_board_names_where_it_is():
    event = ev.from_dict(mitchell_3())
    assert seating.check_board_start(event, 1, 1, 3, 1, 1) == (
        "Law 15: section A, table 1, round 1: board 3 is not played here (boards 1-2); it is at table 2 this round")
    assert seating.check_board_start(event, 1, 1, 7, 1, 1).endswith("board 7 is not played here (boards 1-2); "
                                                               "it is not in play in this section")
    relay = ev.new_event("Club", {"type": "mitchell", "tables": 4, "even": "relay"}, boards_per_round=2)
    assert seating.check_board_start(relay, 1, 1, 7, 1, 1).endswith("it is on the relay this round")  # set 4


def test_wrong_pair_names_where_they_play_the_board():
    event = ev.from_dict(mitchell_3())
    # EW 2 sits at table 1 in round 1 and starts board 1, which EW 2 is to play at table 3 in round 2 (Law 15).
    assert seating.check_board_start(event, 1, 1, 1, 1, 2) == (
        "Law 15: section A, table 1, round 1: EW should be EW 1, not 2 (EW 2 plays board 1 at table 3 in round 2)")


def test_board_start_outside_the_movement():
    data = mitchell_3()
    data["sessions"][0]["sections"][0]["pairs"].pop(2)
    event = ev.from_dict(data)
    assert "section A has tables 1-3" in seating.check_board_start(event, 4, 1, 1, 1, 1)
    assert "section A's movement has rounds 1-3" in seating.check_board_start(event, 1, 4, 1, 1, 1)
    assert seating.check_board_start(event, 3, 1, 5, None, 3) == (
        "Law 15: section A, table 3, round 1: EW 3 sits out this round (the phantom is their opponent); "
        "no board is played here")
    assert "started in section 'Z'" in seating.check_board_start(event, 1, 1, 1, 1, 1, section="Z")


def test_howell_board_start_with_pairs_the_wrong_way_round():
    event = ev.new_event("Club", {"type": "howell", "tables": 3}, boards_per_round=3)
    # Round 1, table 2: pair 2 NS v pair 5 EW, boards 10-12 (docs/movements.md, the 3-table Howell).
    assert seating.check_board_start(event, 2, 1, 10, 2, 5) is None
    assert "NS should be pair 2, not 5; EW should be pair 5, not 2" in seating.check_board_start(event, 2, 1, 10, 5, 2)


# --- hand records -------------------------------------------------------------------------------------------------

def test_hand_records_from_the_sessions_pbn_file(tmp_path):
    (tmp_path / "tuesday.pbn").write_text(PBN, encoding="utf-8")
    (tmp_path / "event.json").write_text(json.dumps(doc_example()), encoding="utf-8")
    event = event_files.load(tmp_path / "event.json")
    one = event_files.hand_record(event, 1)
    assert (one.board, one.dealer, one.vulnerable) == (1, "N", 0)
    assert one.deal.hands["N"] == ("AKQJ", "T98", "765", "432")
    two = event_files.hand_record(event, 2)  # a hand record without the cards: dealer and vulnerability only
    assert (two.dealer, two.vulnerable, two.deal.hands["N"]) == ("E", 1, None)
    assert event_files.hand_record(event, 3) is None
    (tmp_path / "tuesday.pbn").write_text('[Board "1"]\n[Deal "N:AKQ"]\n', encoding="utf-8")
    with pytest.raises(EventError, match=r"sessions\[0\].hand_records: .*tuesday.pbn: line 2: \[Deal\] needs 4 hands"):
        event_files.hand_record(event, 1)


def test_hand_records_missing_file_and_none(tmp_path):
    event = ev.from_dict(doc_example(), directory=tmp_path)
    with pytest.raises(EventError, match=r"sessions\[0\].hand_records: the hand-record file .*tuesday.pbn does not"):
        event_files.hand_record(event, 1)
    assert event_files.hand_record(ev.from_dict(mitchell_3()), 1) is None


# --- bad input ------------------------------------------------------------------------------------------------------

def section_error(**changes):
    data = mitchell_3()
    data["sessions"][0]["sections"][0].update(changes)
    return error(data)


def test_unknown_movement():
    assert section_error(movement={"type": "swiss", "tables": 3}) == (
        "sessions[0].sections[0].movement: unknown movement 'swiss': one of mitchell, howell, teams, barometer, "
        "round-robin, swiss-teams, knockout, swiss-pairs, individual")


def test_one_table_mitchell():
    assert section_error(movement={"type": "mitchell", "tables": 1}) == (
        "sessions[0].sections[0].movement: a Mitchell needs 3 tables or more, not 1: for 2 tables play a Howell")


def test_boards_not_divisible_into_the_sets():
    msg = section_error(movement={"type": "mitchell", "tables": 4}, boards_per_round=None, boards=26,
                        pairs=[{"number": n, "line": line} for line in ("NS", "EW") for n in (1, 2, 3, 4)])
    assert msg == ("sessions[0].sections[0].boards: 26 boards do not divide into the 4 board sets of a 4-table skip "
                   "Mitchell; use 24 or 28, or give boards_per_round")
    assert "give boards_per_round, or boards (the boards in play), not both" in section_error(boards=6)
    assert "not neither" in section_error(boards_per_round=None)


def test_duplicate_pair_ids():
    pairs = [{"number": n, "line": line} for line in ("NS", "EW") for n in (1, 2, 3)]
    pairs[1] = {"number": 1, "line": "NS"}
    assert section_error(pairs=pairs) == "sessions[0].sections[0].pairs[1]: NS 1 is listed twice (also " \
                                         "sessions[0].sections[0].pairs[0])"


def test_duplicate_player_ids_in_a_session():
    pairs = [{"number": n, "line": line} for line in ("NS", "EW") for n in (1, 2, 3)]
    pairs[0]["players"] = [{"name": "Ann", "id": "E1"}, {"name": "Bob", "id": "E2"}]
    pairs[4]["players"] = [{"name": "Ann", "id": "E1"}, {"name": "Cy"}]
    assert section_error(pairs=pairs) == ("sessions[0].sections[0].pairs[4].players[0].id: player E1 also plays as "
                                          "sessions[0].sections[0].pairs[0].players[0]; a player plays in one pair "
                                          "a session")


@pytest.mark.parametrize("change, message", [
    ({"pairs": [{"number": 1, "line": "NS"}, {"number": 2, "line": "NS"}, {"number": 1, "line": "EW"},
                {"number": 2, "line": "EW"}]},
     "sessions[0].sections[0].pairs: NS 3, EW 3 are missing; a 3-table Mitchell plays with at most one pair missing"),
    ({"pairs": [{"number": 4, "line": "NS"}]},
     "pairs[0].number: a 3-table Mitchell has pairs NS 1-3 and EW 1-3; not 4"),
    ({"pairs": [{"number": 1}]}, 'pairs[0].line: a Mitchell pair keeps its line: "NS" or "EW", not None'),
    ({"movement": {"type": "howell", "tables": 2}, "pairs": [{"number": 1, "line": "NS"}]},
     "pairs[0].line: pairs change direction in a 2-table Howell; leave line out"),
    ({"pairs": []}, "pairs: list the pairs (3-table Mitchell: NS 1, NS 2, NS 3, EW 1, EW 2, EW 3)"),
    ({"pairs": [{"number": 1, "line": "NS", "players": [{"name": "Solo"}]}]},
     "pairs[0].players: a pair is two players (or none while the names are not known), not 1"),
    ({"name": "Section A"},
     "sessions[0].sections[0].name: a section name is 1-8 characters (such as A), not 'Section A'"),
    ({"movement": {"type": "mitchell", "tables": 3, "even": "skip"}}, "only for an even number of tables"),
    ({"movement": {"type": "mitchell", "tables": 3, "rounds": 4}},
     "movement: rounds of a 3-table Mitchell must be a whole number 1-3, not 4"),
    ({"movement": {"type": "teams"}}, "a two-table team match has two teams (home first), not 0"),
    ({"movement": {"type": "teams", "rounds": 3}, "pairs": []}, "rounds come in twos: 3 rounds is odd"),
    ({"boards_per_round": 40}, "boards_per_round: boards per round must be a whole number 1-36, not 40"),
    ({"first_board": 0}, "first_board: board numbers start from 1, not 0"),
    # structure: the types, required and unknown fields
    ({"boards_per_round": "2"}, "sessions[0].sections[0].boards_per_round: must be a whole number"),
    ({"boards_per_rnd": 2}, "sessions[0].sections[0].boards_per_rnd: is not a field here (check the spelling)"),
    ({"movement": {"tables": 3}}, "sessions[0].sections[0].movement.type: is missing"),
    ({"pairs": {"NS": 1}}, "sessions[0].sections[0].pairs: must be a list"),
    ({"pairs": [{"number": 1, "line": "NS", "players": [{"name": 5}, {"name": "B"}]}]},
     "sessions[0].sections[0].pairs[0].players[0].name: must be text"),
])
def test_bad_sections_say_which_field(change, message):
    assert message in section_error(**change)


def test_bad_event_level_fields():
    assert error({"name": "X", "sessions": []}) == "sessions: the event needs at least one session"
    assert error([]) == 'an event file holds one JSON object: {"name": ..., "sessions": [...]}'
    assert error({**mitchell_3(), "bidwire_event": 2}) == (
        "bidwire_event: this bidwire reads event files of format 1, not 2")
    twice = mitchell_3()
    twice["sessions"][0]["sections"].append(twice["sessions"][0]["sections"][0])
    assert "sessions[0].sections[1]: section 'A' is used twice" in error(twice)


def test_load_names_the_file(tmp_path):
    path = tmp_path / "e.json"
    path.write_text("{", encoding="utf-8")
    with pytest.raises(EventError, match=r"e.json: not valid JSON"):
        event_files.load(path)
    path.write_text(json.dumps({"name": "X"}), encoding="utf-8")
    with pytest.raises(EventError, match=r"e.json: sessions: is missing"):
        event_files.load(path)
    with pytest.raises(EventError, match=r"nope.json: cannot read the event file"):
        event_files.load(tmp_path / "nope.json")


def test_bidwire_event_create(tmp_path):
    from click.testing import CliRunner

    from bidwire_host import cli

    (tmp_path / "h.pbn").write_text(PBN, encoding="utf-8")
    out = tmp_path / "ev.json"
    args = ["event", "create", str(out), "--name", "Tuesday", "--movement", "mitchell", "--tables", "4", "--even",
            "relay", "--boards", "24", "--pairs", "7", "--hand-records", str(tmp_path / "h.pbn")]
    got = CliRunner().invoke(cli.main, args)
    assert got.exit_code == 0, got.output
    assert "table 4: phantom v EW 4, boards 1-6 (shared with table 1)" in got.output
    event = event_files.load(out)
    assert event.sessions[0].hand_records == "h.pbn" and event_files.hand_record(event, 1).dealer == "N"
    again = CliRunner().invoke(cli.main, args)
    assert again.exit_code == 1 and "exists: use --force" in again.output
    bad = CliRunner().invoke(cli.main, [*args[:2], str(tmp_path / "b.json"), *args[3:9], "--boards", "26"])
    assert bad.exit_code == 1 and "26 boards do not divide into the 4 board sets" in bad.output


def test_howell_move_text_tells_pairs_their_new_direction():
    event = ev.new_event("Club", {"type": "howell", "tables": 3}, boards_per_round=3)
    table_2 = seating.assignments(event, 1)[1]
    # Round 1, table 2: pair 2 v pair 5 on set 4. Round 2: pair 2 sits EW at table 1 (6 v 2), pair 5 EW at
    # table 3 (4 v 5), and set 4 is played at table 2 again (3 v 1).
    assert (table_2["ns"], table_2["ew"], table_2["boards"]) == (2, 5, [10, 11, 12])
    assert table_2["move"] == "NS to 1 as EW   EW to table 3   Boards stay"
    assert seating.assignments(event, 4)[0]["move"] == "NS stay         EW to table 2   Boards: finished"


@pytest.mark.parametrize("name,refused", [
    ('Club "Spring"\r\n[Board "99"]', None),  # typed with a line break: kept, the exports escape it (issue 12.9)
    ("Club\tNight", None),
    ("Club\x00Night", "U+0000"),  # a NUL or another control character: refused (issue 24.10)
    ("Club\x1bNight", "U+001B"),
    ("Club\x9bNight", "U+009B"),
])
def test_the_events_name_may_break_lines_but_holds_no_other_control_character(name, refused):
    if refused is None:
        event = ev.new_event(name, {"type": "mitchell", "tables": 3}, boards_per_round=2)
        assert ev.from_dict(ev.to_dict(event)).name == name
        return
    with pytest.raises(EventError, match=re.escape(f"name: no control characters in a name (found {refused})")):
        ev.new_event(name, {"type": "mitchell", "tables": 3}, boards_per_round=2)
    data = ev.to_dict(ev.new_event("Club", {"type": "mitchell", "tables": 3}, boards_per_round=2))
    data["sessions"][0]["name"] = name
    said = f"sessions[0].name: no control characters in a name (found {refused}"
    with pytest.raises(EventError, match=re.escape(said)):
        ev.from_dict(data)
