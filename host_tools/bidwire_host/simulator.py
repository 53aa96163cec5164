"""Virtual units for the host: the real firmware (.mpy) on the MicroPython unix port with the unix_sim board, one
process per table, driven line by line (`N 1`, `N H`, `E PASS`, `sync 1000`) — what `make demo` plays with.

Each key line waits for the unit's `key <journaled> <changed>` answer, so a script and the unit stay in step.
"""
import os
import queue
import subprocess
import threading
from pathlib import Path

from bidwire.core import record
from bidwire.core.board import dealer as dealer_of
from bidwire.core.calls import SEATS, lho


class UnitError(RuntimeError):
    """The virtual unit stopped or did not answer; the message carries what it printed last."""


class VirtualUnit:
    def __init__(self, micropython, firmware, config, heap="160K", timeout=20):
        env = dict(os.environ, MICROPYPATH=f".frozen:{firmware}")
        self.proc = subprocess.Popen([str(micropython), "-X", f"heapsize={heap}", "-m", "main", str(config)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env=env, text=True, bufsize=1)
        self.timeout = timeout
        self.lines = queue.Queue()
        self.rows = []  # the text rows of every frame printed
        threading.Thread(target=self._pump, daemon=True).start()
        self.boot = self._expect("boot ")

    def _pump(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def _expect(self, prefix):
        while True:
            try:
                line = self.lines.get(timeout=self.timeout)
            except queue.Empty:
                raise UnitError(f"the virtual unit said nothing for {self.timeout} s") from None
            if line is None:
                raise UnitError(f"the virtual unit stopped: {self.proc.stderr.read()[-1500:]}")
            if line.startswith("|"):
                self.rows.append(line[1:-1])
            if line.startswith(prefix):
                return line

    def key(self, line):
        """One key line; True if the unit took it (it changed something)."""
        self.write(line)
        return self._expect("key ").split()[2] == "1"

    def write(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def frame(self):
        return self.rows[-8:]

    def finish(self, timeout=60):
        self.proc.stdin.close()
        return self.proc.wait(timeout=timeout)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def key_lines(seat, call):
    """The presses for one call at a seat panel: '1NT' -> ['N 1', 'N NT']."""
    if call in ("P", "X", "XX"):
        return [f"{seat} {'PASS' if call == 'P' else call}"]
    return [f"{seat} {call[0]}", f"{seat} {call[1:]}"]


def board_lines(board, calls, tricks):
    """Play a board at a unit: the auction (calls from the dealer round the table; "~1S" is made out of rotation
    by the player after the one whose turn it is), the opening lead, the tricks entered by declarer and confirmed
    by the leader, then on to the next board. (lines, contract, declarer)"""
    d = dealer_of(board)
    a = record.Auction(d)
    lines = []
    turn = d
    for call in calls:
        if call.startswith("~"):  # out of rotation: the player after the one whose turn it is
            call, seat = call[1:], SEATS[lho(turn)]
        else:
            seat = SEATS[turn]
        record.apply(a, f"{seat}:{call}")
        lines += key_lines(seat, call)
        turn = lho(a.p_seat) if a.p_kind else a.in_turn()  # a pending irregularity: its LHO may accept it
    contract = record.contract_text(a)
    if contract is None:
        raise ValueError(f"board {board}: the auction {' '.join(calls)} does not end")
    if contract == "Pass":
        return lines + ["N PASS"], contract, None
    declarer = a.declarer()
    leader = SEATS[lho(declarer)]
    lines.append(f"{leader} C")
    level = int(contract[0])
    if tricks >= 7 and tricks != level + 6:
        lines.append(f"{SEATS[declarer]} {tricks - 6}")
    elif tricks < 7:
        lines += [f"{SEATS[declarer]} X"] * (level + 6 - tricks)
    lines += [f"{SEATS[declarer]} PASS", f"{leader} PASS", "N PASS"]
    return lines, contract, SEATS[declarer]


def firmware_dir(root):
    return Path(root) / "build" / "unit"
