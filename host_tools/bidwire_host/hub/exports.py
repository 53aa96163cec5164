"""The combined field as files: PBN (one ScoreTable across every club's results per board, one TotalScoreTable)
and USEBIO, written by the same exporters as a club's (bidwire_host/formats/), with the sim's hand set."""
from bidwire_host.event.model import Player
from bidwire_host.formats import pbn_export, usebio
from bidwire_host.formats.pbn import parse_deal
from bidwire_host.formats.publish import EventInfo, publication
from bidwire_host.scoring import combined_field as field
from bidwire_host.scoring import field_tally as tally
from bidwire_host.sim_ids import players_of


def _publication(sim, rows):
    results, names = field.results_of(rows)
    hands = {int(b): parse_deal(text) for b, text in sim["hands"].items()}
    info = EventInfo(event=sim["name"], date=sim["release_at"].date(), method=sim["scoring"],
                     club=f"{sim['name']}: the whole field", session="1", section="A",
                     masterpoints=sim.get("masterpoints"))
    two = sim["winners"] == "two"
    # With two winners a contestant is (direction, pair): NS pair C1-A-1 and EW pair C1-A-1 are two pairs, each
    # with its own names (keyed by the pair alone, one overwrote the other: issue 40, item 2).
    by_pair = {((direction, who) if two else who): text for (direction, who), text in names.items() if text}
    players = _players(rows, two)
    pub = publication(results, info, hands=hands, names=by_pair, players=players, two_fields=two)
    for record in pub.boards:  # each result's players, seat by seat: N and S of its NS pair, E and W of its EW pair
        for i, row in enumerate(record.rows):
            r = row.result
            seated = {}
            for direction, who in (("NS", r.ns), ("EW", r.ew)):
                pair = players.get((direction, who) if two else who)
                if pair:
                    seated.update(zip(direction, (p.name for p in pair), strict=True))
            if seated:
                record.players[i] = seated
    return pub


def _players(rows, two):
    """{contestant: [Player, Player]} of every pair its club named by two players ("A & B"), each with the national
    number the club sent where it did ("1 & 2", in the same order), so that the USEBIO credits the players
    themselves and each seat of the PBN names its player."""
    out = {}
    for r in rows:
        for direction, pair, names, ids in (("NS", r["ns"], r["ns_names"], r.get("ns_ids", "")),
                                            ("EW", r["ew"], r["ew_names"], r.get("ew_ids", ""))):
            players = players_of(names, ids)
            if players is None:
                continue
            who = tally.pair_id(r["club_id"], r["section"], pair, r["session"])
            out[(direction, who) if two else who] = [Player(n, i) for n, i in players]
    return out


def pbn(sim, rows):
    return pbn_export.dumps(_publication(sim, rows))


def usebio_xml(sim, rows):
    return usebio.dumps(_publication(sim, rows))
