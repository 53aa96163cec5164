"""The live field (hub/live_field.py) keeps each pair's sums as a line in E, the most-played board's size, and
replaces a board's terms when its results change. Whatever the order of uploads, corrections and withdrawals,
its figures must be those of field.score on the rows held at the end (itself held to the club's scoring core by
test_field_fast.py): every row's matchpoints, and every pair's total, top, boards, percentage and rank."""
from hypothesis import given, settings
from hypothesis import strategies as st
from test_field_fast import SCORES

from bidwire_host.hub.live_field import LiveField
from bidwire_host.scoring import combined_field as field


def _row(club, board, table, score, adjusted):
    return {"club_id": f"C{club}", "session": "", "section": "A", "board": board, "ns": str(table), "ew": str(table),
            "ns_names": f"N{club}{table}", "ew_names": f"E{club}{table}", "contract": None if adjusted else "1NT",
            "declarer": None if adjusted else "N", "tricks": None if adjusted else 7,
            "score_ns": None if adjusted else score, "adjusted": adjusted, "version": 1}


result = st.tuples(st.integers(1, 3), st.integers(1, 4), st.integers(1, 4), st.sampled_from(SCORES),
                   st.sampled_from([None] * 8 + [{"ns": 60, "ew": 40}, {"ns_score": 420, "ew_score": -50}]))
step = st.tuples(st.sampled_from(["put", "put", "put", "drop"]), result)


def _view(f):
    ranking = sorted((e["pair"].direction, e["pair"].club, e["pair"].section, e["pair"].number, e["rank"],
                      e["pct"], e["mp"], e["top"], e["boards"], e["names"], e["club_rank"]) for e in f.ranking)
    boards = {b: [(r["club"], r["ns"], r["mp_ns"], r["mp_ew"], r["top"], r["pct_ns"]) for r in rows]
              for b, rows in f.boards.items()}
    return ranking, boards, f.results


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(step, min_size=1, max_size=6), min_size=1, max_size=6), st.sampled_from(["mp", "neuberg"]),
       st.sampled_from(["one", "two"]))
def test_the_live_field_is_the_field_scored_afresh(uploads, method, winners):
    sim = {"id": "s", "scoring": method, "winners": winners}
    live, held = LiveField(sim), {}
    for upload in uploads:
        touched = set()
        for action, (club, board, table, score, adjusted) in upload:
            key = (club, board, table)
            if action == "put":
                held[key] = _row(club, board, table, score, adjusted)
            else:
                held.pop(key, None)
            touched.add(board)
        live.update({b: [held[k] for k in sorted(held) if k[1] == b] for b in touched})
        rows = [held[k] for k in sorted(held, key=lambda k: (k[1], k[0], k[2]))]
        assert _view(live.field()) == _view(field.score(sim, rows))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(step, min_size=1, max_size=6), min_size=1, max_size=6), st.sampled_from(["mp", "neuberg"]),
       st.sampled_from(["one", "two"]))
def test_results_merged_as_they_change_give_the_field_scored_afresh(uploads, method, winners):
    """What a worker does between two reads (hub/live_field.py): the results set since are merged into their boards,
    each in place of the one held for the same pairs; a board that lost a result is read again whole."""
    sim = {"id": "s", "scoring": method, "winners": winners}
    live, held = LiveField(sim), {}
    for upload in uploads:
        merged, whole = {}, set()
        for action, (club, board, table, score, adjusted) in upload:
            key = (club, board, table)
            if action == "put":
                held[key] = _row(club, board, table, score, adjusted)
                merged.setdefault(board, []).append(held[key])
            elif held.pop(key, None) is not None:
                whole.add(board)
        live.update({b: [held[k] for k in sorted(held) if k[1] == b] for b in whole})
        for b, rows in merged.items():
            if b not in whole:
                live.tally.merge(b, rows)
        rows = [held[k] for k in sorted(held, key=lambda k: (k[1], k[0], k[2]))]
        assert _view(live.field()) == _view(field.score(sim, rows))
