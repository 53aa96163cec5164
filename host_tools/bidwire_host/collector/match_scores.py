"""A teams event's match score on its units (issue 38; the event's evening.match_scores): once both tables of a
match have finished it, each is told the score, "Match 2 over: home 24-17 IMPs, VPs 14.20-5.80", kept on the
screen until the next call. Run in the sync's transaction after its results (ingest.py), only for a result on the
last board a table plays in a match's second half; each table told once."""
from bidwire_host.collector import commands, team_events
from bidwire_host.collector.standings import Standings
from bidwire_host.scoring.model import format_number
from bidwire_host.scoring.victory_points import text


def send(conn, s, results):
    """Queue the score of each match that `results` (the sync's new `results` rows) finished."""
    if s is None or not s.event.night().match_scores:
        return
    due = set()
    for r in results:
        sec = s.section(r["section"]) if r["section"] is not None else None
        if not team_events.is_event(sec) or r["round"] is None or r["round"] % 2 or r["held"] is not None:
            continue
        here = sec.movement_plan().at(r["table_no"], r["round"])
        if here is not None and r["board"] == here.boards[-1]:
            due.add((sec.name, r["round"] // 2))
    for section, match_round in sorted(due):
        sec = s.section(section)
        scored = Standings()
        scored.load(conn, section)
        for m in team_events.matches(sec, [r for _, r in scored.results()]):
            if m.round != match_round or not m.over:
                continue
            home, away = m.score
            vh, va = m.vps
            said = (f"Match {m.round} over: home {format_number(home)}-{format_number(away)} IMPs, VPs "
                    f"{text(vh)}-{text(va)}")[:48]
            table = team_events.table_of(sec.movement_plan(), m.round, int(m.home))
            for t in (table, table + 1):
                unit = s.unit_at(section, t)
                if unit is not None:
                    commands.tell_once(conn, unit, said)

