"""A fake flash chip for the tests: the block device littlefs (vfs.VfsLfs2, a unit's file system) runs on, in RAM,
and that loses power at a chosen program or erase. The SIGKILL of a virtual unit never tears a write (the host's
page cache outlives the process); this does, at the hardware boundary, under the real littlefs (tests/mp/power_loss.py).

It speaks MicroPython's extended block device protocol as an ESP32 flash partition does: readblocks(block, buf,
offset), writeblocks(block, buf, offset) programs without erasing, ioctl(6, block) erases a block. As on NOR flash a
program only clears bits (1 -> 0) and an erase sets a whole block to 0xFF.

Programs and erases are counted in one sequence, `ops` (littlefs's sync, ioctl 3, is not an op: the chip has no
cache). cut(n) makes op n (0-based) the one during which the power goes:
- stop (tear=-1): op n applies nothing;
- tear (0 <= tear < 1): op n applies the first tear * length bytes; with `noise` (a seed) the rest is left half
  done: a program clears some of the bits it was to clear, an erase sets some bits. Without, the rest is untouched.
Then op n raises PowerCut, and the chip is dead: every later read, program or erase fails (-EIO) and changes
nothing, so code still unwinding after the cut cannot write. A reboot is Flash(old.data): the bytes as they are.
"""
import random

_EIO = 5


class PowerCut(BaseException):
    """The power went during a program or erase. Not an Exception: the firmware's `except Exception` recoveries (a
    rebuild from flash) are for a unit that is still running, which one without power is not."""


class Flash:
    def __init__(self, data=None, blocks=128, block_size=4096):
        self.block_size = block_size
        self.data = bytearray(b"\xff" * (blocks * block_size)) if data is None else data  # taken as it is, not copied
        self.blocks = len(self.data) // block_size
        self._view = memoryview(self.data)
        self._erased = memoryview(b"\xff" * block_size)
        self.ops = self.programs = self.erases = 0
        self.cut_at = -1  # the op during which the power goes; -1: never
        self.tear = -1  # -1: stop (nothing applied); else the share of op cut_at that is applied
        self.noise = 0
        self.dead = False  # the power went

    def cut(self, at, tear=-1, noise=0):
        """Lose power during op `at` (see the module's docstring)."""
        self.cut_at, self.tear, self.noise = at, tear, noise

    def _power(self, n):
        """Count an op of `n` bytes; the bytes of it to apply, or -1 to apply them all."""
        op = self.ops
        self.ops += 1
        if op != self.cut_at:
            return -1
        self.dead = True
        return 0 if self.tear < 0 else int(n * self.tear)

    def readblocks(self, block, buf, offset=0):
        if self.dead:
            return -_EIO
        start = block * self.block_size + offset
        buf[:] = self._view[start:start + len(buf)]
        return 0

    def writeblocks(self, block, buf, offset=0):
        if self.dead:
            return -_EIO
        n = len(buf)
        start = block * self.block_size + offset
        self.programs += 1
        keep = self._power(n)
        view = self._view
        if keep < 0 and view[start:start + n] == self._erased[:n]:
            view[start:start + n] = buf  # the usual case (littlefs programs erased bytes): no loop
            return 0
        d = self.data
        for i in range(n if keep < 0 else keep):
            d[start + i] &= buf[i]
        if keep < 0:
            return 0
        if self.noise:
            random.seed(self.noise)
            for i in range(keep, n):
                d[start + i] &= buf[i] | random.getrandbits(8)
        raise PowerCut(f"program of {n} bytes at block {block} + {offset}: {keep} applied")

    def ioctl(self, op, arg):
        if op == 4:  # block count
            return self.blocks
        if op == 5:  # block size
            return self.block_size
        if op == 6:  # erase block `arg`
            if self.dead:
                return -_EIO
            self.erases += 1
            bs = self.block_size
            start = arg * bs
            keep = self._power(bs)
            if keep < 0:
                self._view[start:start + bs] = self._erased
                return 0
            self._view[start:start + keep] = self._erased[:keep]
            if self.noise:
                random.seed(self.noise)
                d = self.data
                for i in range(start + keep, start + bs):
                    d[i] |= random.getrandbits(8)
            raise PowerCut(f"erase of block {arg}: {keep} of {bs} bytes erased")
        return 0  # init, deinit, sync
