"""A teams event's standings (issue 38): each team's victory points over its finished matches (and its byes), and
ties split as the EBU's White Book puts it (§143.7, "EBU Split Tie Procedure", docs/teams.md cites it):

    (a) the match between the tied teams: its VPs, then its IMPs (teams that tie in threes or more: when each has
        met each of the others, the VPs of their matches among themselves, then those matches' IMPs);
    (b) tie-break points, the sum of the VPs of every opponent met (a Swiss only: never in an all-play-all);
    (c) the IMPs won less the IMPs lost over every match;
    (d) the point-a-board count-back: boards won, and half for each board drawn, over every match;
    (e) otherwise the teams stay tied, and share the place.

Each criterion splits the teams it can; a smaller group that still ties starts again from (a).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from bidwire_host.scoring.ranking import tie_key


@dataclass
class Standing:
    team: str
    rank: str = ""  # "3", or "3=" for a place shared
    vps: int = 0  # hundredths, byes included
    played: int = 0  # matches finished
    imps_for: Fraction = Fraction(0)
    imps_against: Fraction = Fraction(0)
    byes: int = 0
    opponents: list = field(default_factory=list)


def standings(teams, matches, *, byes=(), bye_vps=1200, swiss=True):
    """[Standing] best first, of `teams` (their numbers), from `matches` (team_matches.Match: only those over
    count) and `byes` (the teams that had one, once per bye, each scoring `bye_vps` hundredths). `swiss`: tie-break
    points (b) count; an all-play-all (round robin) leaves them out."""
    table = {str(t): Standing(str(t)) for t in teams}
    done = [m for m in matches if m.over]
    for m in done:
        home_vps, away_vps = m.vps
        home_imps, away_imps = m.score
        for team, vps, won, lost, other in ((m.home, home_vps, home_imps, away_imps, m.away),
                                            (m.away, away_vps, away_imps, home_imps, m.home)):
            s = table[team]
            s.vps += vps
            s.played += 1
            s.imps_for += won
            s.imps_against += lost
            s.opponents.append(other)
    for team in byes:
        table[str(team)].vps += bye_vps
        table[str(team)].byes += 1
    context = _Context(table, done, swiss)
    groups = []
    for vps in sorted({s.vps for s in table.values()}, reverse=True):
        tied = sorted((t for t, s in table.items() if s.vps == vps), key=tie_key)
        groups.extend(context.order(tied))
    out, place = [], 1
    for group in groups:
        for team in sorted(group, key=tie_key):
            table[team].rank = f"{place}=" if len(group) > 1 else str(place)
            out.append(table[team])
        place += len(group)
    return out


class _Context:
    def __init__(self, table, done, swiss):
        self.table, self.done, self.swiss = table, done, swiss
        self.criteria = (self._head_to_head_vps, self._head_to_head_imps, self._tie_break_points, self._imps,
                         self._count_back)

    def order(self, group, start=0):
        """The tied `group` split into groups best first, by the criteria from `start` on."""
        if len(group) < 2:
            return [group]
        for i in range(start, len(self.criteria)):
            key = self.criteria[i](group)
            if key is None:
                continue
            values = sorted(set(key.values()), reverse=True)
            if len(values) > 1:
                out = []
                for v in values:
                    part = [t for t in group if key[t] == v]
                    out.extend(self.order(part, 0 if len(part) < len(group) else i + 1))
                return out
        return [group]

    def _among(self, group):
        """The finished matches among the teams of `group`, if each of them has met each of the others; else None."""
        inside = [m for m in self.done if m.home in group and m.away in group]
        met = {frozenset((m.home, m.away)) for m in inside}
        n = len(group)
        return inside if len(met) == n * (n - 1) // 2 else None

    def _head_to_head_vps(self, group):
        inside = self._among(group)
        if inside is None:
            return None
        key = dict.fromkeys(group, 0)
        for m in inside:
            key[m.home] += m.vps[0]
            key[m.away] += m.vps[1]
        return key

    def _head_to_head_imps(self, group):
        inside = self._among(group)
        if inside is None:
            return None
        key = dict.fromkeys(group, Fraction(0))
        for m in inside:
            key[m.home] += m.margin
            key[m.away] -= m.margin
        return key

    def _tie_break_points(self, group):
        if not self.swiss:
            return None
        return {t: sum(self.table[o].vps for o in self.table[t].opponents) for t in group}

    def _imps(self, group):
        return {t: self.table[t].imps_for - self.table[t].imps_against for t in group}

    def _count_back(self, group):
        key = dict.fromkeys(group, Fraction(0))
        for m in self.done:
            for team in (m.home, m.away):
                if team in key:
                    won, drawn = m.won_drawn(team)
                    key[team] += won + Fraction(drawn, 2)
        return key
