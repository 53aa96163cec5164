"""Scoring the event from the core's Law 77 scores: matchpoints, IMPs, rankings, penalties (laws.md §8-§10).

Pure library code (no I/O): the collector's store and service call it, `bidwire score-pbn` prints it.
"""
from bidwire_host.scoring.model import (
    Artificial,
    Assigned,
    Problem,
    Result,
    Row,
    ScoringError,
    Weighted,
)
from bidwire_host.scoring.session import METHODS, Session, Traveller, score_board, score_field

__all__ = [
    "METHODS",
    "Artificial",
    "Assigned",
    "Problem",
    "Result",
    "Row",
    "ScoringError",
    "Session",
    "Traveller",
    "Weighted",
    "score_board",
    "score_field",
]
