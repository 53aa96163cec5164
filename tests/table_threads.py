"""The end-to-end sessions' tables: every table's virtual unit in a thread of its own, the threads meeting at a
barrier after each round, and what the collector has applied at a unit."""
import threading

from waiting import wait_until


def run_tables(tables, play_table, *, after_round=None, timeout=120, join_s=600):
    """Run `play_table(table, finished)` for each table in a thread of its own; `finished` is the barrier every
    table waits at after each round (`after_round()` runs once each time all are there, before any goes on). A
    failure in one thread breaks the barrier for the others; every failure is raised here, together."""
    finished = threading.Barrier(len(tables), action=after_round, timeout=timeout)
    errors = []

    def run(table):
        try:
            play_table(table, finished)
        except Exception as e:  # reported by the main thread
            finished.abort()
            errors.append((table, e))

    threads = [threading.Thread(target=run, args=(table,)) for table in tables]
    for t in threads:
        t.start()
    for t in threads:
        t.join(join_s)
    assert not errors, errors


def assigns_applied(collector, unit, round_no):
    """The round's assign commands the unit has reported applied (its cmd_ack past them)."""
    listing = collector.api.get(f"/api/v1/units/{unit}/commands").json()["commands"]
    return [c["command"] for c in listing if c["command"]["type"] == "assign" and c["command"]["round"] == round_no
            and c["applied"]]


def await_assign(u, collector, unit, round_no, timeout=60):
    """Sync the virtual unit `u` (unit `unit`) until it has applied round `round_no`'s assign; the assign."""
    def synced():
        got = assigns_applied(collector, unit, round_no)
        if not got:
            u.write("sync 1000")
        return got
    [a] = wait_until(synced, timeout=timeout, every=0.2, what=f"{unit}'s assign for round {round_no}")
    return a
