"""Core benchmark, run on MicroPython (from .mpy) and on CPython alike; prints one JSON [name, value] a line.

Bytes are gc.mem_alloc() deltas with the collector disabled, so every allocation on the measured path
counts, garbage included; micropython.mem_total() deltas add what was freed at once (heap-allocated
frames). CPython has neither counter: there it reports times only.
"""
import gc
import json
import sys

try:
    from micropython import mem_total  # bytes ever requested, including blocks freed at once
except ImportError:  # CPython, or a port built without MICROPY_MEM_STATS
    mem_total = None

from naive import NaiveAuction
from workload import AUCTIONS, CONTRACTS

from bidwire.core.auction import Auction
from bidwire.core.readback import parse_call, parse_seat
from bidwire.core.score import score

try:
    from time import ticks_diff, ticks_us  # MicroPython: wrap-safe microsecond ticks

    def elapsed_us(t0):
        return ticks_diff(ticks_us(), t0)

    now = ticks_us
except ImportError:  # CPython
    from time import perf_counter_ns as now

    def elapsed_us(t0):
        return (now() - t0) / 1000


REPEATS = 5  # timings: the host reports the median of these
ALLOC_ROUNDS = 20
TIME_ROUNDS = 150
SCORE_ROUNDS = 300


class Null:
    """An engine that does nothing: the harness's own cost, which should be zero bytes."""

    def __init__(self, dealer):
        pass

    def call(self, seat, call):
        return 0


def workloads():
    """[(dealer, calls)]: call codes in a bytes for the engine, interned text in a tuple for naive.

    Seats follow from the dealer (every call is in turn), which keeps the workload small on a 64K heap.
    """
    coded, text, names = [], [], {}
    for dealer, calls in AUCTIONS:
        d = parse_seat(dealer)
        words = [names.setdefault(w, w) for w in calls.split()]
        coded.append((d, bytes(parse_call(w) for w in words)))
        text.append((d, tuple(words)))
    return coded, text


def check(make, auctions, legal):
    """Every call of the workload must be legal and end its auction: a broken workload measures nothing."""
    for dealer, calls in auctions:
        a = make(dealer)
        for i in range(len(calls)):
            v = a.call((dealer + i) & 3, calls[i])
            if v != legal:
                raise ValueError(f"workload call {calls[i]} (dealer {dealer}, call {i}) was not legal: {v}")
        if not (a.ended() if callable(a.ended) else a.ended):
            raise ValueError(f"workload auction {calls} (dealer {dealer}) did not end")


def alloc_calls(make, auctions, counter):
    """Bytes per call counted by `counter` for the calls of fresh engines (construction not counted)."""
    rounds = []
    ncalls = sum(len(calls) for _, calls in auctions)
    for _ in range(ALLOC_ROUNDS):
        total = 0
        for dealer, calls in auctions:
            a = make(dealer)
            gc.collect()
            gc.disable()
            before = counter()
            for i in range(len(calls)):
                a.call((dealer + i) & 3, calls[i])
            total += counter() - before
            gc.enable()
        rounds.append(total / ncalls)
    return rounds


def alloc_new(make, auctions, counter):
    """Bytes per engine construction counted by `counter`."""
    total = 0
    for dealer, _ in auctions:
        gc.collect()
        gc.disable()
        before = counter()
        make(dealer)
        total += counter() - before
        gc.enable()
    return total / len(auctions)


def time_calls(make, auctions):
    """µs per call, REPEATS samples; each engine is built before its clock starts: calls only are timed."""
    samples = []
    ncalls = sum(len(calls) for _, calls in auctions)
    for _ in range(REPEATS):
        us = 0
        gc.collect()
        for _ in range(TIME_ROUNDS):
            for dealer, calls in auctions:
                a = make(dealer)
                t0 = now()
                for i in range(len(calls)):
                    a.call((dealer + i) & 3, calls[i])
                us += elapsed_us(t0)
        samples.append(us / (TIME_ROUNDS * ncalls))
    return samples


def time_score():
    """µs per Law 77 score() call, REPEATS samples."""
    samples = []
    for _ in range(REPEATS):
        gc.collect()
        t0 = now()
        for _ in range(SCORE_ROUNDS):
            for level, strain, doubled, vulnerable, tricks in CONTRACTS:
                score(level, strain, doubled, vulnerable, tricks)
        samples.append(elapsed_us(t0) / (SCORE_ROUNDS * len(CONTRACTS)))
    return samples


def emit(name, value):
    print(json.dumps([name, value]))


def main():
    if hasattr(gc, "mem_free"):
        gc.collect()
        emit("heap_free_after_import", gc.mem_free())  # the core and this bench loaded, workload not built
    coded, text = workloads()
    check(Auction, coded, 0)
    check(NaiveAuction, text, "legal")
    emit("implementation", sys.implementation.name)
    emit("version", ".".join(str(n) for n in sys.implementation.version[:3]) + " (" + sys.version + ")")
    emit("auctions", len(coded))
    emit("calls", sum(len(calls) for _, calls in coded))
    engines = (("harness", Null, coded), ("engine", Auction, coded), ("naive", NaiveAuction, text))
    counters = (("alloc", getattr(gc, "mem_alloc", None)), ("requested", mem_total))
    for what, counter in counters:
        if counter is None:
            continue
        for name, make, work in engines:
            emit(f"{what}_{name}_call", alloc_calls(make, work, counter))
            emit(f"{what}_{name}_new", alloc_new(make, work, counter))
    for name, make, work in engines:
        emit(f"us_{name}_call", time_calls(make, work))
    emit("us_score", time_score())


main()
