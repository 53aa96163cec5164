"""One time convention on every page (docs/director.md, "Times"): the club's time zone — the event file's
`time_zone`, else the collector host's — on a 24-hour clock, the zone named once on each page.

The store keeps instants in UTC (ISO 8601); only the pages turn them into the club's wall-clock time.
"""
import os
from datetime import date, datetime, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from jinja2 import pass_context
from markupsafe import Markup, escape


def _zone_named(name):
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def host_zone():
    """The host's zone: $TZ or /etc/localtime as a tz database zone when it is one, else the C library's offset
    (a POSIX $TZ such as NZDT-13)."""
    name = os.environ.get("TZ", "").lstrip(":")
    if not name:
        target = os.path.realpath("/etc/localtime")
        name = target.split("zoneinfo/", 1)[1] if "zoneinfo/" in target else ""
    return (_zone_named(name) if name else None) or datetime.now().astimezone().tzinfo or timezone.utc


def zone(setup):
    """The club's zone: the loaded event's `time_zone`, else the host's."""
    name = setup.event.time_zone if setup is not None else None
    return (_zone_named(name) if name else None) or host_zone()


def zone_name(tz):
    """How the pages name the zone: its tz database name, else its abbreviation (UTC, NZDT)."""
    return getattr(tz, "key", None) or datetime.now(tz).tzname() or "UTC"


def local(iso, tz):
    """A stored instant (ISO text) in zone `tz`, or None when it is not one."""
    try:
        at = datetime.fromisoformat(iso)
    except (TypeError, ValueError):
        return None
    return (at if at.tzinfo else at.replace(tzinfo=timezone.utc)).astimezone(tz)


def when_html(iso, tz):
    """`<time datetime=ISO>Tue 1 Dec 2026, 20:14</time>`: date and time, for an instant of another day."""
    at = local(iso, tz)
    if at is None:
        return iso or ""
    return Markup(f'<time datetime="{escape(iso)}">{at:%a} {at.day} {at:%b %Y, %H:%M}</time>')


def clock_html(iso, tz):
    """`<time datetime=ISO>20:14:05</time>`: the time of day, for what happens during the session."""
    at = local(iso, tz)
    if at is None:
        return iso or ""
    return Markup(f'<time datetime="{escape(iso)}">{at:%H:%M:%S}</time>')


@pass_context
def _when(ctx, iso):
    return when_html(iso, ctx.get("tz") or host_zone())


@pass_context
def _clock(ctx, iso):
    return clock_html(iso, ctx.get("tz") or host_zone())


def day(text):
    """A session's date (`2026-12-01`) as `<time>` reading "Tue 1 Dec 2026"; other text as it is."""
    try:
        d = date.fromisoformat(text)
    except (TypeError, ValueError):
        return text or ""
    return Markup(f'<time datetime="{d.isoformat()}">{d:%a} {d.day} {d:%b %Y}</time>')


def offset_minutes(tz):
    """The zone's offset from UTC now, in minutes: the pages' script writes its own clock with it."""
    return int(datetime.now(tz).utcoffset().total_seconds() // 60)


def install(env):
    """The filters and globals on a template environment."""
    env.filters.update(when=_when, clock=_clock, day=day)
    env.globals.update(zone_name=zone_name, offset_minutes=offset_minutes)
