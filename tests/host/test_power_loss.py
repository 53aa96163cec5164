"""Power loss on the unit for real (issue 24): the firmware's journal on littlefs (vfs.VfsLfs2, as on the ESP32) over
a fake flash chip that loses power at a program or erase, stopping it or tearing it (boards/sim/flash.py), the
unit rebooted on the bytes that survived. The SIGKILLs of tests/e2e never tear a write: the page cache outlives them.

tests/mp/power_loss.py does the work on the 64-bit MicroPython unix port, the firmware compiled to .mpy as on a
unit, and prints its figures; this checks them (docs/reliability.md, "Power loss on littlefs"). The default run
cuts a 6-board session at 300 seeded cut points per mode; BIDWIRE_POWER_LOSS=long cuts a 12-board one at every
program and erase (about 3,100 per mode). Each run draws a fresh seed (the cut points, the tears) and prints it;
BIDWIRE_POWER_LOSS_SEED=n draws the same again.
The mutation tests break the journal on purpose and check that the same checks fail.
"""
import json
import os
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
SCRIPT = ROOT / "tests" / "mp" / "power_loss.py"
LONG = os.environ.get("BIDWIRE_POWER_LOSS", "").lower() == "long"
BOARDS, CUTS = (12, "all") if LONG else (6, 300)
AT_LEAST = 1000 if LONG else 300  # cut points per mode


def session_file(tmp_path, boards):
    """tests/e2e/session.py's script of `boards` boards (auctions, irregular boards with the director, results):
    every line changes the unit's state."""
    sys.path.insert(0, str(ROOT / "tests" / "e2e"))
    try:
        import session
    finally:
        sys.path.remove(str(ROOT / "tests" / "e2e"))
    lines, _ = session.session(boards)
    path = tmp_path / f"session-{boards}.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


def power_loss(build, lines, cuts, seed, mutation=""):
    """Run tests/mp/power_loss.py; (exit status, its JSON figures or None, its output)."""
    proc = subprocess.run(["nice", str(BIN / "micropython"), "-X", "heapsize=8M", str(SCRIPT), str(lines), str(cuts),
                           str(seed), *([mutation] if mutation else [])], cwd=ROOT,
                          env=dict(os.environ, MICROPYPATH=f".frozen:{build}:{ROOT / 'boards' / 'sim'}"),
                          capture_output=True, text=True, timeout=3600)
    try:
        figures = json.loads(proc.stdout.splitlines()[-1])
    except (IndexError, ValueError):
        figures = None
    return proc.returncode, figures, proc.stdout[-3000:] + proc.stderr[-3000:]


def test_no_acknowledged_event_is_lost_at_any_cut_point(mpy_build, tmp_path):
    seed = int(os.environ.get("BIDWIRE_POWER_LOSS_SEED") or random.SystemRandom().randrange(1, 1 << 30))
    print(f"\npower loss seed {seed} (BIDWIRE_POWER_LOSS_SEED={seed} draws the same cut points again)")
    status, f, output = power_loss(mpy_build, session_file(tmp_path, BOARDS), CUTS, seed)
    assert status == 0 and f is not None, output
    print(json.dumps(f, indent=1))
    # the session is what it is meant to be: presses, syncs, compactions, more ops than cut points
    assert f["presses"] == f["lines"] - 1 and f["syncs"] >= BOARDS and f["compactions"] >= 2
    assert f["ops"] > AT_LEAST and f["erases"] > 0
    cuts = f["ops"] if CUTS == "all" else CUTS
    for mode in ("stop", "tear"):
        m = f[mode]
        assert m["failures"] == [] and m["failed"] == 0, (mode, m["failures"])
        assert m["tried"] == cuts >= AT_LEAST
        assert m["mounted"] == m["booted"] == m["went_on"] == cuts
        assert m["lost_acknowledged"] == 0
        assert m["duplicates"] == 0
        assert m["wrong_state"] == 0
        # at most the press in flight lost: only a cut during a press loses one, and one at most
        assert m["lost_in_flight"] + m["kept_in_flight"] == m["cut_in"]["key"]
        assert m["cut_in"]["key"] > 0 and m["cut_in"]["sync"] > 0


def test_a_chip_that_acknowledges_a_program_before_it_is_done_is_caught(mpy_build, tmp_path):
    """Mutation "late": the power cut also loses the program before it, which littlefs was told was done. A press
    that had returned loses its record: the checks must see acknowledged events lost."""
    status, f, output = power_loss(mpy_build, session_file(tmp_path, 3), 150, 1, "late")
    assert status == 0 and f is not None, output
    for mode in ("stop", "tear"):
        assert f[mode]["lost_acknowledged"] > 0 and f[mode]["failed"] > 0, f[mode]


def test_a_journal_that_does_not_flush_is_caught(mpy_build, tmp_path):
    """Mutation "noflush": Journal.append without its flush. On littlefs nothing of the file is committed before it
    is flushed or closed, so the session fails before any power cut: the outbox never sees the events."""
    status, f, output = power_loss(mpy_build, session_file(tmp_path, 3), 10, 1, "noflush")
    assert status != 0 and f is None
    assert "a backlog of" in output and "an empty outbox" in output, output
