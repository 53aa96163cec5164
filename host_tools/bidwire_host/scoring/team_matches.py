"""A teams event's matches from its results (issue 38): each board IMPed between the match's two tables (Law 78 B,
scoring.imps.team_board), each match's running score, and its victory points once its last board is in.

A result names its teams as its pairs (`ns`, `ew`: the team numbers); the two tables of a match play the same
boards with the teams in the other directions, and two teams meet once, so a board's pair of results is a match
(scoring.imps.match_pairs finds them). A match is over when every board it was drawn to play has its two results.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from bidwire_host.scoring import victory_points
from bidwire_host.scoring.imps import butler_board, team_board


@dataclass
class Match:
    """One match: the home and away teams, the boards it plays, and what is in so far."""

    round: int  # the match round
    home: str
    away: str
    boards: tuple[int, ...]  # every board the match is drawn to play
    imps: dict  # board -> (home's IMPs, away's IMPs) on it, one the other's negative, of boards both tables played
    scale: str | None = victory_points.WBF  # None: a knock-out's match, won on IMPs
    carry: tuple = (0, 0)  # the IMPs each team starts with (a knock-out's carry-over)

    @property
    def over(self):
        return set(self.imps) >= set(self.boards)

    @property
    def score(self):
        """(home's IMPs, away's IMPs) so far, as a match's score is written: each board's IMPs to the team that
        gained them (24 - 17)."""
        return (sum((max(a, 0) for a, _ in self.imps.values()), Fraction(self.carry[0])),
                sum((max(b, 0) for _, b in self.imps.values()), Fraction(self.carry[1])))

    @property
    def margin(self):
        """The home team's IMPs less the away team's, so far."""
        home, away = self.score
        return home - away

    @property
    def vps(self):
        """(home's VPs, away's VPs) in hundredths once the match is over, else None. The scales are of whole IMPs:
        a margin with a half IMP in it (Law 86 B's average) counts its whole IMPs."""
        if not self.over or self.scale is None:
            return None
        margin = int(self.margin)  # towards nothing
        return victory_points.victory_points(max(margin, 0), max(-margin, 0), len(self.boards), self.scale)

    @property
    def winner(self):
        """The team that won the match once it is over (IMPs and any carry-over); None: not over, or level."""
        if not self.over or self.margin == 0:
            return None
        return self.home if self.margin > 0 else self.away

    def won_drawn(self, team):
        """(boards won, boards drawn) by `team` in the match: the point-a-board count."""
        mine = 0 if team == self.home else 1
        won = sum(1 for x in self.imps.values() if x[mine] > x[1 - mine])
        return won, sum(1 for x in self.imps.values() if x[0] == x[1])


def matches(results, schedule, scale=victory_points.WBF, carry=None):
    """[Match] of `schedule` ([(match round, home, away, boards)]) from the event's `results` (scoring Results whose
    ns and ew are team numbers), each board IMPed between its two tables. `carry`: {(match round, team): IMPs} a
    team starts that match with."""
    carry = carry or {}
    by_board = {}
    for r in results:
        by_board.setdefault(r.board, []).append(r)
    imps = {}  # (frozenset of the two teams, board) -> {team: IMPs}
    for board, rs in by_board.items():
        for row in team_board(rs):
            r = row.result
            if row.problem is None and row.imp_ns is not None and r.ns is not None and r.ew is not None:
                imps.setdefault((frozenset((str(r.ns), str(r.ew))), board), {})[str(r.ns)] = row.imp_ns
    out = []
    for round_no, home, away, boards in schedule:
        home, away = str(home), str(away)
        key = frozenset((home, away))
        got = {b: (imps[key, b][home], imps[key, b][away]) for b in boards
               if len(imps.get((key, b), {})) == 2}
        out.append(Match(round_no, home, away, tuple(boards), got, scale,
                         (carry.get((round_no, home), 0), carry.get((round_no, away), 0))))
    return out


def pair_matches(results, schedule, scale=victory_points.WBF):
    """[Match] of a Swiss pairs's `schedule` ([(match round, NS pair, EW pair, boards)]): every board scored across
    the whole field in Butler IMPs (against the datum, scoring.imps.butler_board), and on each board of a match
    the NS pair's gain over the EW pair, its IMPs less theirs (the `home` side of the Match is the NS pair)."""
    by_board = {}
    for r in results:
        by_board.setdefault(r.board, []).append(r)
    gain = {}  # (NS pair, EW pair, board) -> the NS pair's IMPs less the EW pair's
    for board, rs in by_board.items():
        for row in butler_board(rs):
            r = row.result
            if row.problem is None and row.imp_ns is not None and row.imp_ew is not None and r.ns is not None:
                gain[str(r.ns), str(r.ew), board] = row.imp_ns - row.imp_ew
    out = []
    for round_no, ns, ew, boards in schedule:
        ns, ew = str(ns), str(ew)
        got = {b: (gain[ns, ew, b], -gain[ns, ew, b]) for b in boards if (ns, ew, b) in gain}
        out.append(Match(round_no, ns, ew, tuple(boards), got, scale))
    return out
