"""Issue 26 item 7: every error of the collector's tools gives a one-line cause and fix, no traceback, and leaves
nothing behind; `bidwire --version` prints the version."""
import json
from importlib.metadata import version

import pytest
from click.testing import CliRunner
from collector_kit import ApiClient, played, sync

from bidwire_host.cli import main
from bidwire_host.collector.store import DB_NAME
from bidwire_host.event import model as ev
from bidwire_host.server import create_app


def mitchell():
    return ev.to_dict(ev.new_event("Club", {"type": "mitchell", "tables": 3}, boards_per_round=2))


@pytest.fixture
def scored(data):
    """A data directory whose store has one result of section A."""
    with ApiClient(create_app(data, event=mitchell(), tables={"T01": 1})) as c:
        assert sync(c, played(1, 1, section="A", table=1, round=1, ns=1, ew=1)).status_code == 200
    return data


def run(*args, env=None):
    result = CliRunner().invoke(main, [str(a) for a in args], env=env)
    assert result.exit_code != 0 and result.exception is None or isinstance(result.exception, SystemExit), \
        result.output
    text = result.output.strip()
    assert "Traceback" not in text and len(text.splitlines()) == 1, text
    return text


def test_export_to_a_directory_that_does_not_exist(scored, tmp_path):
    out = tmp_path / "nonexistent" / "dir" / "x.xml"
    said = run("export", "--data", scored, "--format", "usebio", "--out", out)
    assert f"the directory {out.parent} does not exist" in said and "mkdir -p" in said
    assert not (tmp_path / "nonexistent").exists()


def test_export_of_a_section_the_event_does_not_have(scored, tmp_path):
    said = run("export", "--data", scored, "--section", "Z", "--out", tmp_path / "x.pbn")
    assert "no section 'Z'" in said and "choose one of A" in said and "nothing scored" not in said
    assert not (tmp_path / "x.pbn").exists()


def test_backup_into_a_directory_that_does_not_exist_blames_that_directory(scored, tmp_path):
    out = tmp_path / "nonexistent" / "dir" / "b.sqlite"
    said = run("backup", "--data", scored, out)
    assert f"cannot write the backup {out}: the directory {out.parent} does not exist" in said
    assert str(scored / DB_NAME) not in said
    assert not (tmp_path / "nonexistent").exists()


@pytest.mark.parametrize("event, tables", [({"name": "Club", "sessions": "none"}, ""),
                                           (mitchell(), "T01=9")])
def test_serve_with_a_bad_event_leaves_no_store_behind(tmp_path, event, tables):
    path = tmp_path / "event.json"
    path.write_text(json.dumps(event))
    data = tmp_path / "data"
    args = ["serve", "--data", data, "--port", "0", "--event", path] + (["--tables", tables] if tables else [])
    said = run(*args, env={"BIDWIRE_DIRECTOR_PASSWORD": "pw", "BIDWIRE_SCORER_PASSWORD": "pw2"})
    assert said.startswith("Error: ")
    assert not data.exists() or sorted(p.name for p in data.iterdir()) == []


def test_version():
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0 and result.output == f"bidwire {version('bidwire')}\n"


def test_event_create_sets_the_club_s_time_zone(tmp_path):
    """Issue 26 item 9: the time zone is set in the event, with the host's as the default."""
    out = tmp_path / "event.json"
    result = CliRunner().invoke(main, ["event", "create", str(out), "--name", "Club", "--movement", "mitchell",
                                       "--tables", "3", "--boards-per-round", "2", "--time-zone", "Europe/Dublin"])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["time_zone"] == "Europe/Dublin"
    said = run("event", "create", tmp_path / "bad.json", "--name", "Club", "--movement", "mitchell", "--tables", 3,
               "--boards-per-round", 2, "--time-zone", "Mars/Base")
    assert "time_zone: 'Mars/Base' is not a time zone name" in said and not (tmp_path / "bad.json").exists()
