"""A unit rebuilds its auction after a power cut by replaying the engine's input log from the journal.

A module of its own so that the 64 KB MicroPython heap holds the engine and these tests only.
"""
from scratch import cut, file_size, remove_tree, scratch

from bidwire.core import readback, record
from bidwire.core.auction import Auction
from bidwire.core.readback import parse_seat
from bidwire.unit.journal import Journal

START = 0  # record kinds of this test: the board's dealer, mode and options, then each input
INPUT = 1
# An insufficient bid not accepted, an alert, a change of call after UNDO, rulings, the lead faced.
STEPS = ["N:1H", "E:1S", "!reject", "N:P", "E:1S", "S@", "S:2H", "W:P", "N~3H", "!25a", "E:P", "S:4H",
         "W:X", "N:P", "E:P", "S:P", "*lead"]


def replayed(path):
    log = bytearray()
    dealer = mode = options = 0
    for kind, payload in Journal(path).records():
        if kind == START:
            dealer, mode, options = payload[0], payload[1], payload[2]
        else:
            log.extend(payload)
    return record.summary(readback.replay(dealer, mode, options, log))


def test_replaying_the_journaled_input_log_rebuilds_the_same_auction():
    path = scratch("replay")
    try:
        j = Journal(path)
        a = Auction(parse_seat("N"))
        j.append(START, bytes([a.dealer, a.mode, a.options]))
        before_last = None
        for step in STEPS:
            before_last = record.summary(a)
            readback.apply(a, step)
            j.append(INPUT, a.inputs[-2:])  # the engine logs each input as 2 bytes; journal it before acking
        j.close()
        assert replayed(path) == record.summary(a)
        cut(j.path, file_size(j.path) - 1)  # the power cut tore the last input, which was never acknowledged
        assert replayed(path) == before_last
    finally:
        remove_tree(path)
