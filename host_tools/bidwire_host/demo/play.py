"""`make demo`'s event and its scripted players: a club's Tuesday pairs with every pair named (two members of the
club's register, members.csv, which the event file refers to by membership number), hand records dealt for the
session and analysed double dummy, and what each table plays with them (`Deals.play`: the key lines for a virtual
unit).

The players bid their cards from a small, sound system (bidding.py) — with an irregularity staged where the book's
irregular auctions fall, made where a player would make it — lead from their longest suit, and take tricks near
double dummy's; one
result is entered five tricks off (`Deals.staged`), the only alert the director's queue should end with. The draws
are seeded: the same seed, the same session. Without hand records (the chaos test's session) `_table_play` plays
the book's auctions with tricks near the contract.
"""
import csv
import json
import os
import random
import time
from pathlib import Path

from bidwire_host.demo import bidding
from bidwire_host.event import analysis
from bidwire_host.event import files as event_files
from bidwire_host.event import model as event_mod
from bidwire_host.event.analysis import tricks_for
from bidwire_host.scoring.masterpoints import EBU_CLUB
from bidwire_host.unit_tools.simulator import auction_lines, board_lines, leader_of

# Auctions from the dealer round the table ("~" marks a call out of rotation: made by the seat after the one
# whose turn it is, and accepted by the next call, Law 29 A; an insufficient bid is accepted the same way, 27 A).
BOOK = [
    ["1NT", "P", "3NT", "P", "P", "P"],
    ["1H", "P", "2H", "P", "P", "P"],
    ["1S", "2H", "2S", "P", "4S", "P", "P", "P"],
    ["P", "1D", "P", "1H", "P", "2H", "P", "P", "P"],
    ["1C", "1S", "X", "2S", "3H", "P", "4H", "P", "P", "P"],
    ["1NT", "X", "P", "P", "P"],
    ["P", "P", "P", "P"],
    ["1D", "P", "1S", "P", "2S", "P", "P", "P"],
    ["1H", "1D", "P", "P", "P"],  # 1D is insufficient; dealer's partner accepts it by passing (Law 27 A)
    ["~1S", "2H", "P", "P", "P"],  # LHO bids 1S at dealer's turn; the next player accepts by calling (Law 29)
]
IRREGULAR = {8: "insufficient", 9: "out_of_rotation"}  # the book's irregular auctions, and what they stage
TD_CALL = ["TD", "TD", "1", "2", "3", "4", "2"]  # a player calls the director; he comes, PIN 1234, "end call"


# The club's members, for the demo's names (accents as a real club's list has them) and membership numbers.
FIRST = ["Zoë", "Seán", "Aoife", "Siobhán", "Pádraig", "Éamon", "Niamh", "Ciarán", "Róisín", "Máire", "Brendan",
         "José", "Anaïs", "Björn", "Renée", "Chloé", "François", "Inés", "Łukasz", "Małgorzata", "Jürgen", "Søren",
         "Ingrid", "Noël", "Dolores", "Tomás", "Gráinne", "Declan", "Oisín", "Saoirse"]
LAST = ["Ó Briain", "Ní Dhomhnaill", "O'Sullivan", "Mac Cárthaigh", "Kennedy", "Fitzgerald", "García", "Müller",
        "Dubois", "Lefèvre", "Nowak", "Kowalczyk", "Andersen", "Brennan", "Ó Dálaigh", "Byrne", "Nyström", "Walsh",
        "Moreau", "Ramírez"]
CLUB = "Dún Laoghaire Bridge Club"
CLUB_ID = 4216  # its number with the national body (USEBIO CLUB)
REGISTER = "members.csv"  # the club's members: number, first name, last name
HANDS = "event-hands.pbn"  # the session's hand records, dealt afresh (bidwire event create --deal's library)


def _members(seed, playing):
    """The club's register: (number, first name, last name) of `playing` members who play tonight, first, and twenty
    who do not (a seeded draw: the same seed, the same members)."""
    rng = random.Random(f"{seed}:players")
    names = rng.sample([(f, la) for f in FIRST for la in LAST], playing + 20)
    numbers = rng.sample(range(10001, 40000), playing + 20)
    return [(n, f, la) for n, (f, la) in zip(numbers, names, strict=True)]


def demo_event(movement, boards_per_round, seed, teams=None, sections=1, sessions=1):
    """The demo's event: the club's Tuesday pairs (or, with `teams`, its teams night: a round robin or a Swiss of
    that many teams, each named for its captain), dated today, two members named in every pair, hand records in
    HANDS. `sections` > 1: as many sections on the same boards, scored across the field. `sessions` 2: an afternoon
    and an evening of the same pairs (each played in a folder of its own)."""
    night = "teams night" if teams else "Tuesday pairs"
    ev = event_mod.new_event(f"{CLUB}: {night}", movement, boards_per_round=boards_per_round, session="Evening",
                             date=time.strftime("%Y-%m-%d"), hand_records=HANDS, teams=teams)
    data = event_mod.to_dict(ev)
    if sections > 1:
        first = data["sessions"][0]["sections"][0]
        data["sessions"][0]["sections"] += [dict(json.loads(json.dumps(first)), name="ABCDEFGH"[k])
                                            for k in range(1, sections)]
        data["sessions"][0]["across_field"] = True
    data["club"] = {"name": CLUB, "id": CLUB_ID}
    if not teams:
        data["masterpoints"] = {"scale": EBU_CLUB}  # a club session on the EBU's local points (scoring/masterpoints)
    for part, players in _partnerships(data, _members(seed, 4 * (teams or 0) + 2 * _pairs(data))):
        _name(part, players)
    if sessions == 2:  # the same pairs, named, in both
        data["sessions"] = [dict(json.loads(json.dumps(data["sessions"][0])), name=name)
                            for name in ("Afternoon", "Evening")]
    named = [t for sec in data["sessions"][0]["sections"] for t in sec.get("teams", [])]
    twice = {t["name"] for t in named if sum(u["name"] == t["name"] for u in named) > 1}
    for t in named:  # two captains of one surname: their first names' initials tell the teams apart
        if t["name"] in twice:
            first, last = t["ns"][0]["name"].split(" ", 1)
            t["name"] = f"{last} {first[0]}. team"
    return event_mod.from_dict(data)


def _pairs(data):
    return sum(len(sec.get("pairs", [])) for sec in data["sessions"][0]["sections"])


def _partnerships(data, members):
    """(where, [(number, first, last), (...)]): each pair's two members, and each team's NS and EW two each."""
    out, k = [], 0
    for sec in data["sessions"][0]["sections"]:
        for p in sec.get("pairs", []):
            out.append((p, members[k:k + 2]))
            k += 2
        for t in sec.get("teams", []):
            for line in ("ns", "ew"):
                out.append(((t, line), members[k:k + 2]))
                k += 2
    return out


def _name(part, players):
    named = [{"name": f"{f} {la}", "id": n} for n, f, la in players]
    if isinstance(part, tuple):  # a team's line; the team is named for its NS pair's first player, its captain
        team, line = part
        team[line] = named
        if line == "ns":
            team["name"] = f"{players[0][2]} team"
    else:
        part["players"] = named


def write_event(ev, path, seed, deal_seed=None, session=None):
    """Write the event beside its files: the club's register (REGISTER, `bidwire players import`'s CSV) and the
    boards it plays dealt into HANDS (`bidwire event create --deal`'s dealer, seeded); the event file at `path`
    names each player by membership number only, the register giving the name. The session's Deals, analysed.
    `deal_seed` (default `seed`) deals the boards: the clubs of a sim share it, and differ in `seed`."""
    path = Path(path)
    plan = ev.sessions[0].sections[0].movement_plan()
    played = list(plan.boards())  # every set's (a Swiss's matches not drawn yet too)
    dealt = analysis.deal_session(played, seed if deal_seed is None else deal_seed)
    path.with_name(HANDS).write_text(dealt, encoding="utf-8")
    data = event_mod.to_dict(ev)
    teams = sum(len(sec.get("teams", [])) for sec in data["sessions"][0]["sections"])
    with open(path.with_name(REGISTER), "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["Number", "First name", "Last name"])
        w.writerows(_members(seed, 4 * teams + 2 * _pairs(data)))
    for sec in (sec for ses in data["sessions"] for sec in ses["sections"]):
        for p in sec.get("pairs", []):
            p["players"] = [{"id": pl["id"]} for pl in p["players"]]
        for t in sec.get("teams", []):
            for line in ("ns", "ew"):
                t[line] = [{"id": pl["id"]} for pl in t.get(line, [])]
    data["register"] = REGISTER
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return Deals(event_files.load(path), seed, session)  # the names from the register


def _table_play(board, table, seed, deal=None, hands=None):
    """The auction, the tricks and whether the director is called at one table: tables may bid a board
    differently and take other tricks. With the board's cards (`hands`) and analysis (`deal`: {"dd", "par"}) the
    table bids its cards (bidding.py), staging the irregularity of the book's pick where a player would make it
    (the other kind when the cards leave that one no place), and takes tricks near double dummy's; without them
    (the chaos test's session) the auction is the book's and the tricks near the contract."""
    rng = random.Random(f"{seed}:{board}:{table}")
    pick = (board * 3 + rng.randrange(2)) % len(BOOK)
    if deal is None or hands is None:
        calls = BOOK[pick]
    else:
        kinds = (IRREGULAR[pick], *(k for k in IRREGULAR.values() if k != IRREGULAR[pick])) if pick in IRREGULAR \
            else ()
        calls = next((c for c in (bidding.stage(board, hands, k) for k in kinds) if c), None) or \
            bidding.auction(board, hands)
    bids = [c.lstrip("~") for c in calls if c.lstrip("~")[0].isdigit()]
    level = int(bids[-1][0]) if bids else 1
    expected = level + 6
    if deal is not None and bids:
        _, contract, declarer = auction_lines(board, calls)
        expected = tricks_for(deal, contract, declarer)
    tricks = max(0, min(13, expected + rng.choice((-2, -1, -1, 0, 0, 0, 1, 1))))
    return calls, tricks, rng.random() < 0.1


def _lead(hand, leader):
    """The suit of the opening lead: the leader's longest suit in the hand record (one he holds), else clubs."""
    if hand is None or hand.deal is None or hand.deal.hands.get(leader) is None:
        return "C"
    held = hand.deal.hands[leader]  # spades, hearts, diamonds, clubs
    return "SHDC"[max(range(4), key=lambda i: (len(held[i]), -i))]


class Deals:
    """The session's hand records and their double-dummy tables, and what each table plays with them: the book's
    auctions, the opening lead from a suit the leader holds, tricks near double dummy; one result (`staged`:
    (table, board)) entered five tricks away from it, a wrong entry for the director's queue."""

    def __init__(self, ev, seed, session=None):
        self.hands, self.seed = event_files.hand_records(ev, session), seed
        self.tables = analysis.tables(self.hands)  # {board: {"dd", "par"}}
        # table 1's last round, played once the collector has stored its analysis: its last board bid to a contract
        plan = ev.sessions[0].sections[0].movement_plan()
        last = [b for b in plan.at(1, plan.rounds).boards
                if auction_lines(b, _table_play(b, 1, seed, self.tables.get(b), self._cards(b))[0])[2]]
        self.staged = (1, last[-1]) if last else None

    def _cards(self, board):
        h = self.hands.get(board)
        return h.deal.hands if h is not None and h.deal is not None else None

    def play(self, board, table):
        """(key lines, contract, declarer, tricks) of the board at the table."""
        deal = self.tables.get(board)
        calls, tricks, td = _table_play(board, table, self.seed, deal, self._cards(board))
        _, contract, declarer = auction_lines(board, calls)
        if declarer is not None and (table, board) == self.staged and deal is not None:
            best = tricks_for(deal, contract, declarer)
            tricks = best + 5 if best <= 8 else best - 5
        lead = _lead(self.hands.get(board), leader_of(declarer)) if declarer is not None else "C"
        lines, contract, declarer = board_lines(board, calls, tricks, lead)
        if td:  # the director is called after the first call, comes and ends the call
            seat = lines[0].split()[0]
            lines[1:1] = [f"{seat} {k}" for k in TD_CALL]
        return lines, contract, declarer, tricks
