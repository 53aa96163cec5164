"""The host's one clock: the time now in UTC, as an aware datetime and as the ISO text the stores keep (milliseconds).
Code that must be told the time in tests takes a clock (Service.clock), which defaults to `now`."""
from datetime import datetime, timezone


def now():
    return datetime.now(timezone.utc)


def now_iso():
    return now().isoformat(timespec="milliseconds")
