"""`make bench`, the exports (issue 14): PBN 2.1, USEBIO 1.2 and the CSV zip of a collector store holding 180,000
results, through collector/export.py as `bidwire export` runs it, each beside a baseline measured in the same run:
the same publication (export.publication: the rows, the standings, the auctions, the hand records and their
analysis read from the store) built without a writer, so that the difference is what the writer adds.

The store is an event a director could load: SECTIONS sections of a TABLES-table Mitchell (2 boards a round, every
round: 30 boards, 450 results a section), every pair named (two players with membership numbers), the session's
30 hand records dealt from a fixed seed (analysis.deal_session) and analysed (the stored analysis the PBN writes
as OptimumResultTable), and for every result its board, its auction_end event (the auction the writers read) and
its lead — what the units would have synced, less the calls, leads and board starts the exports do not read. The
outcomes are collector_scoring.py's (scored by the core, Law 77).

An export is of one section (`bidwire export --section`), so two figures per format:
- the whole store: every section exported in turn in one process, the standings loaded once (as the collector
  serves GET /api/v1/export/...), total seconds; baseline: every section's publication, no writer, each timed just
  before that section's render;
- one section by `bidwire export --section A --format F --out FILE`, the whole command timed from outside (start-up,
  the store opened, section A's results loaded and scored, the section written) and its peak RSS (VmHWM: the CLI's
  entry point run in a process of this file, which reads it at the end; a child's ru_maxrss would count the
  bench's own image it was forked from);
  baseline: the same steps in a process that builds the publication and writes nothing.

    .venv/bin/python bench/export_bench.py [--sections 400] [--json]

A benchmark, not a test: a figure over its target is printed as "over target", never an error.
"""
import json
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "bench"), str(ROOT / "firmware"), str(ROOT / "host_tools")]

import click  # noqa: E402
from collector_bench import section_name  # noqa: E402
from collector_scoring import _OUTCOMES  # noqa: E402

from bidwire.core import board as core_board  # noqa: E402
from bidwire_host.collector import event_setup  # noqa: E402
from bidwire_host.event import analysis  # noqa: E402
from bidwire_host.event import files as event_files  # noqa: E402
from bidwire_host.event import model as event_mod  # noqa: E402
from bidwire_host.scoring.model import law77_score  # noqa: E402

BIDWIRE = Path(sys.executable).with_name("bidwire")
SECTIONS = 400
TABLES = 15  # a complete 15-table Mitchell, 2 boards a round: 30 boards, each played 15 times
BOARDS_PER_ROUND = 2
FORMATS = ("pbn", "usebio", "csv")
TARGET_SECTION_S = 10.0  # a scorer's `bidwire export` of one section, even from a store this size
REPEATS = 3
SEED = 2026
FIRST = ["Zoë", "Seán", "Aoife", "Siobhán", "Pádraig", "Éamon", "Niamh", "Ciarán", "Björn", "Renée"]
LAST = ["Ó Briain", "Ní Dhomhnaill", "O'Sullivan", "Mac Cárthaigh", "García", "Müller", "Lefèvre", "Nowak"]
SEATS = "NESW"


def _event(sections, hands_file):
    """The event file's JSON: `sections` Mitchell sections, every pair named."""
    secs, member = [], 100000
    for k in range(sections):
        pairs = []
        for line in ("NS", "EW"):
            for n in range(1, TABLES + 1):
                players = []
                for _ in range(2):
                    member += 1
                    players.append({"name": f"{FIRST[member % 10]} {LAST[member // 10 % 8]}", "id": member})
                pairs.append({"number": n, "line": line, "players": players})
        secs.append({"name": section_name(k), "movement": {"type": "mitchell", "tables": TABLES},
                     "boards_per_round": BOARDS_PER_ROUND, "pairs": pairs})
    return {"bidwire_event": 1, "name": "Simultaneous pairs (bench)",
            "sessions": [{"name": "Evening", "date": "2026-12-01", "hand_records": str(hands_file),
                          "sections": secs}]}


def _auction(board, contract, declarer):
    """Calls from the dealer ending in `contract` by `declarer`: passes to declarer, the bid, LHO's double if the
    contract is doubled, three passes."""
    turn = core_board.dealer(board)
    calls = []
    while SEATS[turn] != declarer:
        calls.append(f"{SEATS[turn]}:P")
        turn = (turn + 1) % 4
    calls.append(f"{declarer}:{contract.rstrip('X')}")
    for k in range(1, 5 if contract.endswith("X") else 4):
        call = "X" if contract.endswith("X") and k == 1 else "P"
        calls.append(f"{SEATS[(turn + k) % 4]}:{call}")
    return calls


def store_for_export(data, sections=SECTIONS):
    """A collector data directory holding the event, its hand records and analysis, and sections x 450 results
    with their boards and auction_end events (see the module's docstring); the number of results."""
    from bidwire_host.collector.store import Store

    data.mkdir(parents=True, exist_ok=True)
    hands_file = data.parent / "hands.pbn"
    hands_file.write_text(analysis.deal_session(range(1, TABLES * BOARDS_PER_ROUND + 1), SEED), encoding="utf-8")
    event = _event(sections, hands_file)
    ev = event_mod.from_dict(event)
    hands = event_files.hand_records(ev)
    tables = analysis.tables(hands)
    plan = ev.sessions[0].sections[0].movement_plan()
    rng = random.Random(SEED)
    boards, events, results = [], [], []
    for k in range(sections):
        name = section_name(k)
        for r in range(1, plan.rounds + 1):
            for p in plan.in_round(r):
                unit = f"{name}-{p.table:02d}"
                for board in p.boards:
                    contract, declarer, over, _ = rng.choices(_OUTCOMES, weights=[w for *_, w in _OUTCOMES])[0]
                    tricks = int(contract[0]) + 6 + over
                    score = law77_score(board, contract, declarer, tricks, core_board.vulnerability(board))
                    seq = 3 * (r * BOARDS_PER_ROUND + p.boards.index(board))
                    calls = _auction(board, contract, declarer)
                    leader = SEATS[(SEATS.index(declarer) + 1) % 4]
                    held = [len(suit) for suit in hands[board].deal.hands[leader]]  # the leader's longest suit
                    lead = "SHDC"[held.index(max(held))]
                    boards.append((len(boards) + 1, unit, seq, board, name, p.table, r, str(p.ns.number),
                                   str(p.ew.number), SEATS[core_board.dealer(board)],
                                   core_board.VUL_NAMES[core_board.vulnerability(board)], "record", len(calls),
                                   json.dumps(calls), contract, declarer, contract, declarer, lead, "done"))
                    events.append((unit, seq + 1, "auction_end", board, 1, "2026-12-01T19:30:00+00:00", json.dumps(
                        {"type": "auction_end", "unit": unit, "seq": seq + 1, "board": board, "inputs": calls,
                         "auction": calls, "contract": contract, "declarer": declarer, "log": [], "reviews": [],
                         "lead_restrictions": []})))
                    results.append((unit, seq + 2, len(boards), board, name, p.table, r, str(p.ns.number),
                                    str(p.ew.number), contract, declarer, tricks, score, lead))

    def write(conn):
        event_setup.save(conn, event, {}, "mp", None, start=False)
        conn.executemany("INSERT INTO analysis (board, deal, body, at) VALUES (?, ?, ?, ?)",
                         [(b, hands[b].deal.pbn("N"), json.dumps(t), "2026-12-01T19:00:00+00:00")
                          for b, t in tables.items()])
        conn.executemany("INSERT INTO boards (id, unit, start_seq, board, section, table_no, round, ns, ew, dealer, "
                         "vul, mode, calls, inputs, contract, declarer, unit_contract, unit_declarer, lead, state) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", boards)
        conn.executemany("INSERT INTO events (unit, seq, type, board, boot, received, body) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?)", events)
        conn.executemany("INSERT INTO results (unit, seq, board_id, board, section, table_no, round, ns, ew, "
                         "contract, declarer, tricks, score_ns, lead) VALUES (" + ", ".join("?" * 14) + ")", results)

    with Store(data) as store:
        store.write(write, timeout=600)
    return len(results)


def _standings(data, section=None):
    from bidwire_host.collector import derive
    from bidwire_host.collector.standings import Standings

    store = derive.open_store(data)
    standings = Standings()
    t0 = time.perf_counter()
    standings.load(store.reader(), section)
    return store, standings, time.perf_counter() - t0


def every_section(data):
    """Every section exported in each format in one process, the standings loaded once; each section's render
    timed beside its publication alone, one after the other (so that both see the same machine: the load of the
    others' jobs varies by the minute). {"load_s", "sections", fmt: {"s", "publication_s", "bytes"}}."""
    from bidwire_host.collector import export

    store, standings, load_s = _standings(data)
    try:
        conn = store.reader()
        names = sorted(standings.sessions)
        out = {"load_s": load_s, "sections": len(names)}
        for fmt in FORMATS:
            size, render_s, publication_s = 0, 0.0, 0.0
            for name in names:
                t0 = time.perf_counter()
                export.publication(conn, standings, name)
                t1 = time.perf_counter()
                body = export.render(conn, standings, fmt, name)
                publication_s += t1 - t0
                render_s += time.perf_counter() - t1
                size += len(body if isinstance(body, bytes) else body.encode("utf-8"))
            out[fmt] = {"s": render_s, "publication_s": publication_s, "bytes": size}
        return out
    finally:
        store.close()


def _peak_mib():
    """This process's peak RSS (VmHWM: of its own image, not of the larger one it was forked from), in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _timed(args):
    """(wall seconds, peak RSS in MiB) of this file run with `args` to its end (--measure prints the peak)."""
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode:
        raise RuntimeError(f"{' '.join(args)} failed: {proc.stderr[-2000:]}")
    return wall, float(proc.stderr.strip().splitlines()[-1])


def _same_results(path):
    """An export's bytes but for the line naming the section within its event (a one-section store has none to
    name: USEBIO's EVENT_DESCRIPTION "…, section A")."""
    return re.sub(rb"<EVENT_DESCRIPTION>[^<]*</EVENT_DESCRIPTION>", b"", path.read_bytes())


def one_section(data, tmp, alone=None):
    """`bidwire export --section A` per format, REPEATS times, against a process that builds the same publication
    and writes nothing (this file's --publication-only); and on `alone`, a store holding section A only (the same
    results: what the command would take if it loaded only the section it exports).
    {fmt: [(s, MiB)], "publication": [(s, MiB)], "alone_" + fmt: [(s, MiB)], fmt + "_bytes": size}."""
    out = {"publication": [_timed(["--publication-only", str(data)]) for _ in range(REPEATS)]}
    for fmt in FORMATS:
        for key, where in ((fmt, data), (f"alone_{fmt}", alone)):
            if where is not None:
                out[key] = [_timed(["--export", "--data", str(where), "--format", fmt, "--section", "A", "--out",
                                    str(tmp / f"{key}.{fmt}")]) for _ in range(REPEATS)]
        out[f"{fmt}_bytes"] = (tmp / f"{fmt}.{fmt}").stat().st_size
        if alone is not None and fmt != "csv" and _same_results(tmp / f"{fmt}.{fmt}") != \
                _same_results(tmp / f"alone_{fmt}.{fmt}"):  # (a zip holds its files' times)
            raise RuntimeError(f"section A's {fmt} export differs between the two stores: not the same results")
    return out


def _publication_only(data):
    """The baseline process: `bidwire export`'s steps up to the publication of section A, and no writer."""
    from bidwire_host.collector import export

    store, standings, _ = _standings(Path(data), "A")  # as the command: section A's results only
    try:
        export.publication(store.reader(), standings, "A")
    finally:
        store.close()


def run(sections=SECTIONS):
    with tempfile.TemporaryDirectory(prefix="bidwire-bench-export-") as tmp:
        tmp = Path(tmp)
        t0 = time.perf_counter()
        results = store_for_export(tmp / "big" / "data", sections)
        built = time.perf_counter() - t0
        store_for_export(tmp / "alone" / "data", 1)  # section A's results, the same draw, and nothing else
        return {"results": results, "sections": sections, "build_s": built,
                "bytes": (tmp / "big" / "data" / "bidwire.sqlite3").stat().st_size,
                "every": every_section(tmp / "big" / "data"),
                "one": one_section(tmp / "big" / "data", tmp, tmp / "alone" / "data")}


NAMES = {"pbn": "PBN 2.1", "usebio": "USEBIO 1.2", "csv": "CSV zip"}


def figures(r):
    """Dicts of figure(**...) arguments for bench/run.py."""
    store = (f"a store of {r['results']:,} results ({r['sections']} sections of a {TABLES}-table Mitchell, 30 boards, "
             f"named pairs, hand records with stored analysis, an auction_end per result; "
             f"{r['bytes'] / 2**20:.0f} MiB; bench/export_bench.py)")
    every, one = r["every"], r["one"]
    out = []
    base_s = statistics.median(s for s, _ in one["publication"])
    base_mib = statistics.median(m for _, m in one["publication"])
    for fmt in FORMATS:
        out.append({"name": f"export: {NAMES[fmt]}, every section of {r['results']:,} results",
                    "value": every[fmt]["s"], "unit": "s", "tag": "publication only",
                    "baseline": every[fmt]["publication_s"],
                    "method": f"export.render of each of the {every['sections']} sections in turn, one process, the "
                              f"standings loaded once before the clock ({every['load_s']:.1f} s), of {store}; "
                              f"{every[fmt]['bytes'] / 2**20:.1f} MiB written",
                    "baseline_name": "export.publication of every section (the rows, standings, auctions, hand "
                                     "records read; no writer), each just before its render, same process"})
        s = [x for x, _ in one[fmt]]
        out.append({"name": f"export: bidwire export {NAMES[fmt]}, one section, {r['results']:,}-result store",
                    "value": statistics.median(s), "unit": "s", "target": TARGET_SECTION_S, "spread": s,
                    "tag": "publication only", "baseline": base_s,
                    "method": f"`bidwire export --data DIR --format {fmt} --section A --out FILE` of {store}, the "
                              f"whole command timed (start-up, store opened, every result loaded and scored, the "
                              f"section written: {one[f'{fmt}_bytes'] / 1024:.0f} KiB); median of {REPEATS}",
                    "baseline_name": "a process doing the same up to section A's publication and writing nothing "
                                     "(bench/export_bench.py --publication-only), same run",
                    "baselines": [{"name": "publication only", "value": round(base_s, 2)},
                                  {"name": "the same command on a store holding section A alone (450 results)",
                                   "value": round(statistics.median(x for x, _ in one[f"alone_{fmt}"]), 2)}]})
        out.append({"name": f"export: bidwire export {NAMES[fmt]} peak RSS, {r['results']:,}-result store",
                    "value": statistics.median(m for _, m in one[fmt]), "unit": "MiB", "tag": "publication only",
                    "baseline": base_mib,
                    "method": f"VmHWM of the command above (bidwire's entry point run by bench/export_bench.py "
                              f"--export, which reads /proc/self/status at its end); median of {REPEATS}",
                    "baseline_name": "the same of the publication-only process",
                    "baselines": [{"name": "publication only", "value": round(base_mib, 1)},
                                  {"name": "the same command on a store holding section A alone",
                                   "value": statistics.median(m for _, m in one[f"alone_{fmt}"])}]})
    return out


def main():
    if sys.argv[1:2] == ["--export"]:  # `bidwire export ARGS` (the console script's entry point), then the peak
        from bidwire_host.cli import main as bidwire

        try:
            bidwire(["export", *sys.argv[2:]], standalone_mode=False)
        finally:
            print(f"{_peak_mib():.1f}", file=sys.stderr)
        return
    cli()


@click.command(help=__doc__.splitlines()[0])
@click.option("--sections", type=int, default=SECTIONS, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="print the figures as JSON")
@click.option("--publication-only", metavar="DATA", hidden=True)  # the baseline's fresh process
def cli(sections, as_json, publication_only):
    if publication_only:
        _publication_only(publication_only)
        print(f"{_peak_mib():.1f}", file=sys.stderr)
        return
    r = run(sections)
    if as_json:
        print(json.dumps(r, indent=1))
        return
    print(f"store built in {r['build_s']:.1f} s; standings loaded in {r['every']['load_s']:.1f} s")
    for f in figures(r):
        print(f"{f['name']}: {f['value']:.2f} {f['unit']} (baseline {f['baseline']:.2f}: {f['tag']})")


if __name__ == "__main__":
    main()
