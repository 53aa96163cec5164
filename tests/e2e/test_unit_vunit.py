"""`make vunit`: the virtual unit as a club technician or a test script runs it — keys on stdin, frames as text,
a frame saved as a PBM image."""
import os
import subprocess

import vunit
from vunit import ROOT, write_config


def test_make_vunit_plays_a_script_prints_frames_and_saves_a_pbm(tmp_path):
    cfg = write_config(tmp_path / "unit.json", tmp_path / "state")
    shot = tmp_path / "frame.pbm"
    script = f"N PASS\nN 1\nN H\nE PASS\nsleep 10\nS ALERT\nshot {shot}\nquit\n"
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    proc = subprocess.run(["make", "-s", "vunit", f"CONFIG={cfg}"], cwd=ROOT, input=script, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    rows = [r[1:-1] for r in proc.stdout.splitlines() if r.startswith("|")]
    assert len(rows) % 8 == 0
    last = rows[-8:]
    assert last[0].rstrip() == "Bd1 DlrN -" and last[1] == " W   N   E  >S  "
    assert last[2] == "    1H! P       "  # S alerted N's 1H
    data = shot.read_bytes()
    assert data.startswith(b"P4\n128 64\n") and len(data) == len(b"P4\n128 64\n") + 128 * 64 // 8
    pixels = data[len(b"P4\n128 64\n"):]
    row = 16 * 2 * 8  # the third text row starts at pixel row 16: 16 bytes per pixel row
    assert any(pixels[row:row + 16 * 8])  # ink on the third text row (the auction)
    assert not any(pixels[16 * 8 * 4:16 * 8 * 6])  # text rows 5 and 6 are empty


def _vunit(cfg, script, *args):
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    proc = subprocess.run(["make", "-s", "vunit", f"CONFIG={cfg}", *args], cwd=ROOT, input=script, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    boot = [r for r in proc.stdout.splitlines() if r.startswith("boot ")][0]
    return boot, [r[1:-1].rstrip() for r in proc.stdout.splitlines() if r.startswith("|")][-8:]


def test_make_vunit_starts_fresh_each_run_unless_asked_to_resume(tmp_path):
    cfg = write_config(tmp_path / "unit.json", tmp_path / "state")
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "notes.txt").write_text("not the unit's")  # only the unit's own files are removed
    script = "N PASS\nN 1\nN H\nE PASS\nquit\n"
    first = _vunit(cfg, script)
    again = _vunit(cfg, script)  # the README's example run twice shows the same board, not the old one's state
    assert again == first and "keys=0" in again[0] and again[1][6] == "S to call"
    boot, rows = _vunit(cfg, "S PASS\nquit\n", "RESUME=1")  # carries on from the 4 presses of the last run
    assert "keys=4" in boot and rows[2] == "    1H  P   P" and rows[6] == "W to call"
    assert (tmp_path / "state" / "notes.txt").read_text() == "not the unit's"


def test_a_unit_whose_config_cannot_be_read_says_why_and_stops_with_status_2(tmp_path):
    bad = tmp_path / "bad" / "unit.json"
    bad.parent.mkdir()
    bad.write_text("{not json")
    good = write_config(tmp_path / "unit.json", tmp_path / "state")
    runtime = vunit.RUNTIME or vunit.build()
    argv, env, cwd = runtime.command(good)
    for config, env_config, said in ((tmp_path / "none.json", None, f"no config file at {tmp_path / 'none.json'}"),
                                     (bad, None, f"config file {bad} is not valid JSON"),
                                     (None, bad, f"config file {bad} is not valid JSON")):  # BIDWIRE_CONFIG
        run_env = dict(env, BIDWIRE_CONFIG=str(env_config)) if env_config else env
        proc = subprocess.run(argv[:-1] + ([str(config)] if config else []), env=run_env, cwd=cwd, input="quit\n",
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2 and proc.stdout.startswith("bidwire: " + said), (config, proc.stdout, proc.stderr)


def test_a_provisioned_config_keeps_its_state_under_build_per_unit(tmp_path):
    """Issue 36 item 8: a config with no state_dir (as `make provision` writes it) once put every virtual unit's
    journal in /data at the filesystem root, so a "replacement" booted another unit's journal."""
    import json
    import secrets
    import shutil
    units = [f"TST{secrets.token_hex(3)}" for _ in range(2)]
    try:
        for unit in units:
            cfg = tmp_path / f"{unit}.json"
            cfg.write_text(json.dumps({"unit": unit, "secret": secrets.token_hex(32), "collector": "",
                                       "board": "unix_sim", "mode": "record", "td_pin": "1234"}))
            boot, rows = _vunit(cfg, "N PASS\nN 1\nN H\nquit\n")
            assert "keys=0" in boot  # a fresh journal: not the other unit's
            state = ROOT / "build" / "vunit" / unit / "state"
            assert (state / "journal.bin").exists(), sorted(p.name for p in state.parent.rglob("*"))
            assert json.loads(cfg.read_text()).get("state_dir") is None  # the provisioned file is left as it was
        boot, _ = _vunit(tmp_path / f"{units[0]}.json", "quit\n", "RESUME=1")
        assert "keys=3" in boot  # its own three presses, kept in its own folder
    finally:
        for unit in units:
            shutil.rmtree(ROOT / "build" / "vunit" / unit, ignore_errors=True)
