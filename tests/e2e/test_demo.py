"""`make demo`'s engine: a Mitchell played by virtual units against the real collector, ranked at the end."""
import re
import subprocess
import sys


def test_the_demo_plays_a_three_table_mitchell_to_a_ranking(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "bidwire_host.demo", "--tables", "3", "--port", "0", "--dir",
                           str(tmp_path / "demo")], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout
    assert len(re.findall(r"table \d round \d board +\d+: ", out)) == 18  # 3 tables x 3 rounds x 2 boards
    ranking = re.findall(r"^  (NS|EW) +\d+=? +pair +\d+ +(\d+) of 24", out, re.M)
    assert len(ranking) == 6
    # 6 boards, each played 3 times: 2 per result beaten + 1 per tie gives 6 to each direction on a board
    assert sum(int(mp) for _, mp in ranking) == 6 * 12
    assert "director alerts: 0" in out
