"""The combined field as files: PBN (one ScoreTable across every club's results per board, one TotalScoreTable)
and USEBIO, written by the same exporters as a club's (bidwire_host/formats/), with the sim's hand set."""
from bidwire_host.formats import pbn_export, usebio
from bidwire_host.formats.pbn import parse_deal
from bidwire_host.formats.publish import EventInfo, publication
from bidwire_host.hub import field


def _publication(sim, rows):
    results, names = field.results_of(rows)
    hands = {int(b): parse_deal(text) for b, text in sim["hands"].items()}
    info = EventInfo(event=sim["name"], date=sim["release_at"].date(), method=sim["scoring"],
                     club=f"{sim['name']}: the whole field", session="1", section="A")
    two = sim["winners"] == "two"
    # With two winners a contestant is (direction, pair): NS pair C1-A-1 and EW pair C1-A-1 are two pairs, each
    # with its own names (keyed by the pair alone, one overwrote the other: issue 40, item 2).
    by_pair = {((direction, who) if two else who): text for (direction, who), text in names.items() if text}
    return publication(results, info, hands=hands, names=by_pair, two_fields=two)


def pbn(sim, rows):
    return pbn_export.dumps(_publication(sim, rows))


def usebio_xml(sim, rows):
    return usebio.dumps(_publication(sim, rows))
