"""Penalties as ledger entries and the correction period (laws.md §10.1-10.3, Laws 79 C, 90, 91).

A procedural penalty (Law 90) is an entry against one contestant in one session, in the event's unit; it
never changes the opponents' score on the board. The correction period (Law 79 C) runs until 30 minutes
after the official score is made public unless the SO sets another time; after it, an edit needs an
explicit director override and is flagged "post-correction-period". Pure data: the store persists it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from fractions import Fraction

UNITS = ("mp", "pct", "imps", "vp", "top")  # "top": a fraction of one board's top, e.g. 1/4
KINDS = {"procedural": 90, "disciplinary": 91}
DEFAULT_CORRECTION_MINUTES = 30  # Law 79 C


class LedgerError(ValueError):
    """An entry or an edit that cannot be accepted; the message says why."""


@dataclass(frozen=True, slots=True)
class Penalty:
    """A penalty deducted from `contestant`'s score in `session` (positive `amount` = points taken off)."""

    contestant: object
    session: str
    amount: Fraction
    unit: str
    reason: str
    kind: str = "procedural"
    board: int | None = None
    by: str | None = None
    at: datetime | None = None

    def __post_init__(self):
        if self.unit not in UNITS:
            raise LedgerError(f"penalty unit must be one of {', '.join(UNITS)}, not {self.unit}")
        if self.kind not in KINDS:
            raise LedgerError(f"penalty kind must be procedural (Law 90) or disciplinary (Law 91), not {self.kind}")
        try:
            object.__setattr__(self, "amount", Fraction(self.amount))
        except (TypeError, ValueError):
            raise LedgerError(f"penalty amount must be a number, not {self.amount}") from None
        if not self.reason:
            raise LedgerError("a penalty needs a reason (e.g. 'Law 90 B2: unduly slow play')")

    @property
    def law(self):
        return KINDS[self.kind]


@dataclass
class Ledger:
    """The penalties of an event, in the order given."""

    entries: list[Penalty] = field(default_factory=list)

    def add(self, penalty):
        self.entries.append(penalty)
        return penalty

    def deductions(self, session=None, unit="mp", top=None):
        """{contestant: amount} in `unit` for one session (all if None); "top" entries need the board top."""
        out = {}
        for p in self.entries:
            if session is not None and p.session != session:
                continue
            amount = p.amount
            if p.unit == "top" and unit == "mp":
                if top is None:
                    raise LedgerError("a penalty in fractions of a top needs the board's top to deduct matchpoints")
                amount = amount * top
            elif p.unit != unit:
                continue
            out[p.contestant] = out.get(p.contestant, 0) + amount
        return out


@dataclass(frozen=True, slots=True)
class Correction:
    """One edit of a result, kept for the audit trail (who, when, old -> new, why)."""

    key: object
    old: object
    new: object
    by: str
    at: datetime
    reason: str
    post_period: bool = False


@dataclass
class CorrectionPeriod:
    """Law 79 C: results stay correctable until `minutes` after publication; later only with an override."""

    minutes: int = DEFAULT_CORRECTION_MINUTES
    published_at: datetime | None = None
    log: list[Correction] = field(default_factory=list)
    ended: datetime | None = None  # when the period ended for good: a later republication does not reopen it

    def publish(self, at, minutes=None):
        """Record when the official score was completed and made public, with the period's new length. A
        republication within the period restarts the clock; one after it has ended does not reopen it (a correction
        then is still post-period)."""
        if self.ended is None and self.published_at is not None and at > self.ends_at:
            self.ended = self.ends_at
        self.published_at = at
        if minutes is not None:
            self.minutes = minutes

    @property
    def ends_at(self):
        if self.ended is not None:
            return self.ended
        return None if self.published_at is None else self.published_at + timedelta(minutes=self.minutes)

    def is_open(self, now):
        return self.published_at is None or now <= self.ends_at

    def correct(self, key, old, new, *, by, at, reason, director_override=False):
        """Record an edit; after the period it needs `director_override` and is flagged post-correction-period."""
        if not reason:
            raise LedgerError("a correction needs a reason")
        late = not self.is_open(at)
        if late and not director_override:
            raise LedgerError(f"the correction period ended at {self.ends_at:%Y-%m-%d %H:%M} (Law 79 C); "
                              f"only the director can correct a score now")
        entry = Correction(key, old, new, by, at, reason, post_period=late)
        self.log.append(entry)
        return entry
