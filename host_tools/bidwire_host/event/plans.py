"""A section's movement from what its event file says: the pairs' movements (movements.build) and the teams events
of N teams (team_schedule.build), chosen by the movement's type in one place."""
from __future__ import annotations

from dataclasses import asdict, is_dataclass

from bidwire_host.event import individual, movements, swiss_pairs, team_schedule

KINDS = (*movements.KINDS, *team_schedule.KINDS, swiss_pairs.KIND, individual.KIND)
DRAWN = ("swiss-teams", "knockout", swiss_pairs.KIND)  # events whose rounds are drawn as they go


def build(choice, boards_per_round, first_board=1, teams=0, draws=()):
    """The Movement of a movement choice (event.model.MovementChoice, or its dict); a teams event's needs its
    number of `teams` (a Swiss pairs's, of pairs; an individual's, of players if not 4 a table) and, a drawn
    event's, its `draws` so far."""
    spec = asdict(choice) if is_dataclass(choice) else dict(choice)
    kind = spec.get("type")
    if kind == individual.KIND:
        return individual.build(spec.get("tables"), boards_per_round, spec.get("rounds"), first_board,
                                spec.get("players") or teams or None)
    if kind == swiss_pairs.KIND:
        for key in ("tables", "even"):
            if spec.get(key) is not None:
                raise movements.MovementError(f"{key}: a Swiss pairs has no {key} to give (its tables follow its "
                                              "pairs)")
        return swiss_pairs.build(teams, spec.get("rounds"), draws, boards_per_round, first_board)
    if kind in team_schedule.KINDS:
        for key in ("tables", "even"):
            if spec.get(key) is not None:
                raise movements.MovementError(f"{key}: a {kind} event has no {key} to give (its tables follow its "
                                              "teams)")
        return team_schedule.build(kind, teams, spec.get("rounds"), draws, boards_per_round, first_board)
    if kind not in movements.KINDS:
        raise movements.MovementError(f"unknown movement {kind!r}: one of {', '.join(KINDS)}")
    return movements.build(spec, boards_per_round, first_board)
