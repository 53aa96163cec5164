"""The combined field as files: PBN (one ScoreTable across every club's results per board, one TotalScoreTable)
and USEBIO, written by the same exporters as a club's (bidwire_host/formats/), with the sim's hand set."""
from bidwire_host.event.model import Player
from bidwire_host.formats import pbn_export, usebio
from bidwire_host.formats.pbn import parse_deal
from bidwire_host.formats.publish import EventInfo, publication
from bidwire_host.hub import field, tally


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
    pub = publication(results, info, hands=hands, names=by_pair, players=_players(rows, two), two_fields=two)
    for record in pub.boards:  # each result's players, seat by seat, from its pairs' names ("North & South")
        for i, row in enumerate(record.rows):
            r = row.result
            seated = {}
            for direction, who, seats in (("NS", r.ns, "NS"), ("EW", r.ew, "EW")):
                people = [p.strip() for p in (by_pair.get((direction, who) if two else who) or "").split(" & ")]
                if len(people) == 2 and all(people):
                    seated.update(zip(seats, people, strict=True))
            if seated:
                record.players[i] = seated
    return pub


def _players(rows, two):
    """Each pair's players with their national numbers where the club sent them ({contestant: [Player]}), so that
    the USEBIO credits the players themselves: the names and the numbers in the same order ("A & B", "1 & 2")."""
    out = {}
    for r in rows:
        for direction, pair, names, ids in (("NS", r["ns"], r["ns_names"], r.get("ns_ids", "")),
                                            ("EW", r["ew"], r["ew_names"], r.get("ew_ids", ""))):
            numbers = [x.strip() for x in (ids or "").split("&")]
            people = [x.strip() for x in (names or "").split(" & ")]
            if not ids or len(numbers) != len(people):
                continue
            who = tally.pair_id(r["club_id"], r["section"], pair)
            out[(direction, who) if two else who] = [Player(n, i or None) for n, i in zip(people, numbers,
                                                                                        strict=True)]
    return out


def pbn(sim, rows):
    return pbn_export.dumps(_publication(sim, rows))


def usebio_xml(sim, rows):
    return usebio.dumps(_publication(sim, rows))
