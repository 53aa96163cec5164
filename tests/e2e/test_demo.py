"""`make demo`'s engine: a Mitchell played by virtual units against the real collector, ranked at the end."""
import os
import re
import subprocess
import sys
from pathlib import Path


def test_the_demo_plays_a_three_table_mitchell_to_a_ranking(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "bidwire_host.demo", "--tables", "3", "--port", "0", "--dir",
                           str(tmp_path / "demo"), "--exit-when-done"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout
    assert len(re.findall(r"table \d round \d board +\d+: ", out)) == 18  # 3 tables x 3 rounds x 2 boards
    ranking = re.findall(r"^  (NS|EW) +\d+=? +pair +\d+ +(\d+) of 24", out, re.M)
    assert len(ranking) == 6
    # 6 boards, each played 3 times: 2 per result beaten + 1 per tie gives 6 to each direction on a board
    assert sum(int(mp) for _, mp in ranking) == 6 * 12
    assert "director alerts: 0" in out
    assert re.search(r"director calls from the tables: [1-9]", out)  # the scripted players call the director
    assert re.search(r"irregularities: .*insufficient_bid \(Law 27\)", out)
    # the dashboard's address and login, with the generated password kept in a file only its owner reads
    password_file = tmp_path / "demo" / "director-password"
    assert password_file.stat().st_mode & 0o777 == 0o600
    password = password_file.read_text().strip()
    assert re.search(r"dashboard: http://127\.0\.0\.1:\d+/director", out)
    assert f"login: director / {password}" in out
    scorer_file = tmp_path / "demo" / "scorer-password"  # the scorer's own login, kept the same way
    assert scorer_file.stat().st_mode & 0o777 == 0o600
    scorer = scorer_file.read_text().strip()
    assert scorer != password and f"login: scorer / {scorer}" in out


def test_make_demo_short_session_exits_and_leaves_no_process(tmp_path):
    """issue 5: `make demo TABLES=4 BOARDS=6 EXIT_WHEN_DONE=1` ends with a ranking and stops what it started."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    proc = subprocess.run(["make", "-s", "demo", "TABLES=4", "BOARDS=6", "PORT=0", "EXIT_WHEN_DONE=1"],
                          cwd=Path(__file__).parents[2], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert len(re.findall(r"^  (NS|EW) +\d+=? +pair", proc.stdout, re.M)) == 8
    assert running("build/demo") == [], "make demo left processes running"


def running(marker):
    """Command lines of live processes that mention `marker` (zombies and this test's own shell aside)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in cmd and state != "Z":
            found.append(cmd)
    return found
