"""The player register (issue 14, item 1): a members CSV (number and name) checked line by line, recorded as an
event file's register by `bidwire players import`, and the event's players referred to by number or by name."""
import json
import subprocess

import pytest
from test_collector_export import BIDWIRE

from bidwire_host.event import files as event_files
from bidwire_host.event import model as ev
from bidwire_host.event import players

MEMBERS = "number,name,club\r\n1001,Ann Smith,North\r\n1002,Bob Jones,North\r\n1003,Zoë Ørsted,South\r\n"


def event_file(tmp_path, players_of_ns1, players_of_ns2=None):
    data = ev.to_dict(ev.new_event("Club", {"type": "mitchell", "tables": 3}, boards_per_round=2))
    pairs = data["sessions"][0]["sections"][0]["pairs"]
    pairs[0]["players"] = players_of_ns1
    if players_of_ns2 is not None:
        pairs[1]["players"] = players_of_ns2
    path = tmp_path / "event.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def import_(register, event):
    return subprocess.run([BIDWIRE, "players", "import", str(register), "--event", str(event)], capture_output=True,
                          text=True, timeout=60)


def test_import_records_the_register_and_the_event_gets_names_and_numbers_from_it(tmp_path):
    (tmp_path / "members.csv").write_text(MEMBERS, encoding="utf-8")
    path = event_file(tmp_path, [{"id": 1001}, {"name": "Bob Jones"}], [{"name": "zoë  ørsted"}, {"name": "Visitor"}])
    out = import_(tmp_path / "members.csv", path)
    assert out.returncode == 0, out.stderr
    assert "3 members" in out.stdout
    written = json.loads(path.read_text(encoding="utf-8"))
    assert written["register"] == "members.csv"
    assert written["sessions"][0]["sections"][0]["pairs"][0]["players"] == [{"id": 1001}, {"name": "Bob Jones"}]
    pairs = event_files.load(path).sessions[0].sections[0].pairs
    assert [(p.name, p.id) for p in pairs[0].players] == [("Ann Smith", 1001), ("Bob Jones", "1002")]
    # a name in any case and spacing finds its member (the register's spelling kept); a visitor keeps no number
    assert [(p.name, p.id) for p in pairs[1].players] == [("Zoë Ørsted", "1003"), ("Visitor", None)]


def test_a_register_with_a_byte_order_mark_and_first_and_last_names(tmp_path):
    path = tmp_path / "members.csv"
    path.write_bytes("\ufeffMembership Number;x\r\n".replace(";x", ",First name,Last name").encode("utf-8")
                     + "77,Åsa,Berg\r\n\r\n78,Cy, Young \r\n".encode("utf-8"))
    reg = players.read(path)
    assert len(reg) == 2
    assert reg.by_number["77"].name == "Åsa Berg" and reg.by_number["78"].name == "Cy Young"


@pytest.mark.parametrize(("text", "error"), [
    ("number,name\n1001,Ann Smith\n1002,\n", "line 3: member 1002 has no name"),
    ("number,name\n1001,Ann Smith\n,Bob Jones\n", "line 3: no membership number"),
    ("number,name\n1001,Ann Smith\n\n1001,Bob Jones\n", "line 4: number 1001 is also on line 2"),
    ("member,player name\n1001,Ann Smith\n", "line 1: the header needs a number (or id) column and a name column"),
    ("", "the file is empty"),
])
def test_a_bad_line_is_named_and_nothing_is_written(tmp_path, text, error):
    (tmp_path / "members.csv").write_text(text, encoding="utf-8")
    path = event_file(tmp_path, [{"name": "Ann Smith"}, {"name": "Bob Jones"}])
    before = path.read_bytes()
    out = import_(tmp_path / "members.csv", path)
    assert out.returncode == 1 and error in out.stderr, out.stderr
    assert path.read_bytes() == before


def test_a_register_that_is_not_utf8_is_refused_naming_the_line(tmp_path):
    (tmp_path / "members.csv").write_bytes(b"number,name\n1001,Ann\n1002,Bj\xf6rn\n")
    with pytest.raises(players.RegisterError, match="line 3: not UTF-8"):
        players.read(tmp_path / "members.csv")


def test_an_unknown_number_is_an_error_naming_the_field(tmp_path):
    (tmp_path / "members.csv").write_text(MEMBERS, encoding="utf-8")
    path = event_file(tmp_path, [{"id": 1001}, {"id": 4242}])
    before = path.read_bytes()
    out = import_(tmp_path / "members.csv", path)
    assert out.returncode == 1
    assert "sessions[0].sections[0].pairs[0].players[1].id: no member 4242 in" in out.stderr, out.stderr
    assert path.read_bytes() == before


def test_a_name_and_number_that_disagree_with_the_register_are_an_error(tmp_path):
    (tmp_path / "members.csv").write_text(MEMBERS, encoding="utf-8")
    path = event_file(tmp_path, [{"name": "Ann Smith", "id": 1002}, {"name": "Bob Jones"}])
    out = import_(tmp_path / "members.csv", path)
    assert out.returncode == 1
    assert ("sessions[0].sections[0].pairs[0].players[0]: 'Ann Smith' and number 1002 disagree" in out.stderr
            and "'Bob Jones' (line 3)" in out.stderr), out.stderr


def test_two_members_of_one_name_need_the_number(tmp_path):
    (tmp_path / "members.csv").write_text(MEMBERS + "1004,Ann Smith,South\r\n", encoding="utf-8")
    data = json.loads(event_file(tmp_path, [{"name": "Ann Smith"}, {"id": 1002}]).read_text(encoding="utf-8"))
    data["register"] = "members.csv"
    with pytest.raises(ev.EventError, match=r"pairs\[0\]\.players\[0\]\.name: 2 members are called 'Ann Smith'"):
        ev.from_dict(data, directory=tmp_path)


def test_without_a_register_a_number_alone_is_refused_and_names_work_as_before(tmp_path):
    data = json.loads(event_file(tmp_path, [{"id": 1001}, {"name": "Bob Jones"}]).read_text(encoding="utf-8"))
    with pytest.raises(ev.EventError, match=r"pairs\[0\]\.players\[0\]: the player needs a name \(a number alone "
                                            r"needs the event's register"):
        ev.from_dict(data)
    data["sessions"][0]["sections"][0]["pairs"][0]["players"] = [{"name": "Ann Smith", "id": 9}, {"name": "Bob"}]
    pairs = ev.from_dict(data).sessions[0].sections[0].pairs
    assert [(p.name, p.id) for p in pairs[0].players] == [("Ann Smith", 9), ("Bob", None)]


def test_a_missing_register_file_is_named(tmp_path):
    data = json.loads(event_file(tmp_path, [{"id": 1001}, {"id": 1002}]).read_text(encoding="utf-8"))
    data["register"] = "gone.csv"
    with pytest.raises(ev.EventError, match="register: the player register .*gone.csv does not exist"):
        ev.from_dict(data, directory=tmp_path)
