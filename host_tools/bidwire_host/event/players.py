"""The player register: a club's members (membership number and name) from a CSV file (issue 14, item 1).

`read(path)` reads and checks the file: UTF-8 with or without a byte order mark, a header row naming a `number`
(or `id`, `membership number`, `member number`) column and a `name` column, or `first name` and `last name`
(`surname`) columns instead of `name`; other columns are ignored. Every error is a RegisterError naming the file
and the line. The event file names its register (`"register": "members.csv"`, docs/movements.md); the event
refers to a player by number or by name and `Register.resolve` gives the other from the register.
"""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from bidwire_host.event.checks import control_char

NUMBER_COLUMNS = ("number", "id", "membership number", "member number")
FIRST_COLUMNS = ("first name", "firstname", "forename", "given name")
LAST_COLUMNS = ("last name", "lastname", "surname", "family name")


class RegisterError(ValueError):
    """A register file that cannot be used: the message names the file and the line."""


@dataclass(frozen=True)
class Member:
    number: str
    name: str
    line: int


class Register:
    """The members of a register file: by number, and by name (case and spacing ignored)."""

    def __init__(self, members, source="the register"):
        self.source = source
        self.by_number = {m.number: m for m in members}
        self.by_name = {}
        for m in members:
            self.by_name.setdefault(_key(m.name), []).append(m)

    def __len__(self):
        return len(self.by_number)

    def resolve(self, name, number, where):
        """(name, number) of a player the event names by `name`, by `number` or by both; RegisterError naming
        `where` (the event file's field) for an unknown number, an unknown or ambiguous name, or the two not
        agreeing. A player found is named as the register spells the name; one not in it keeps no number."""
        if number is not None:
            member = self.by_number.get(str(number).strip())
            if member is None:
                raise RegisterError(f"{where}.id: no member {number} in {self.source}")
            if name is not None and _key(name) != _key(member.name):
                raise RegisterError(f"{where}: {name!r} and number {number} disagree: {self.source} has "
                                    f"{member.number} as {member.name!r} (line {member.line})")
            return member.name, number
        found = self.by_name.get(_key(name or ""), [])
        if len(found) > 1:
            raise RegisterError(f"{where}.name: {len(found)} members are called {name!r} in {self.source} "
                                f"({', '.join(m.number for m in found)}): give the id")
        return (found[0].name, found[0].number) if found else (name, None)


def _key(name):
    return " ".join(name.split()).casefold()


def read(path):
    """The Register of a CSV file; RegisterError if it cannot be read or a line is wrong."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise RegisterError(f"{path}: cannot read the register ({e.strerror})") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise RegisterError(f"{path} line {line}: not UTF-8 (save the file as UTF-8 CSV)") from None
    return parse(text, str(path))


def parse(text, source="the register"):
    """The Register of a CSV text (a leading byte order mark allowed)."""
    rows = csv.reader(io.StringIO(text.removeprefix("\ufeff"), newline=""))
    try:
        header = next(rows, None)
        if header is None:
            raise RegisterError(f"{source}: the file is empty; a header row (number,name) and one line per member")
        columns = _columns(header, source)
        members, seen = [], {}
        for row in rows:
            line = rows.line_num
            if not any(cell.strip() for cell in row):
                continue
            member = _member(row, columns, f"{source} line {line}", line)
            if member.number in seen:
                raise RegisterError(f"{source} line {line}: number {member.number} is also on line "
                                    f"{seen[member.number]}")
            seen[member.number] = line
            members.append(member)
    except csv.Error as e:
        raise RegisterError(f"{source} line {rows.line_num}: {e}") from None
    return Register(members, source)


def _columns(header, source):
    names = [" ".join(h.replace("_", " ").split()).casefold() for h in header]

    def find(options):
        return next((names.index(o) for o in options if o in names), None)

    number, name = find(NUMBER_COLUMNS), find(("name", "full name", "player"))
    first, last = find(FIRST_COLUMNS), find(LAST_COLUMNS)
    if number is None or (name is None and (first is None or last is None)):
        raise RegisterError(f"{source} line 1: the header needs a number (or id) column and a name column (or "
                            f"first name and last name); it has {', '.join(header) or 'nothing'}")
    return number, name, first, last


def _member(row, columns, where, line):
    number_at, name_at, first_at, last_at = columns

    def cell(k):
        return row[k].strip() if k is not None and k < len(row) else ""

    number = cell(number_at)
    name = cell(name_at) if name_at is not None else " ".join(x for x in (cell(first_at), cell(last_at)) if x)
    if not number:
        raise RegisterError(f"{where}: no membership number")
    if not name:
        raise RegisterError(f"{where}: member {number} has no name")
    bad = control_char(number) or control_char(name)
    if bad:
        raise RegisterError(f"{where}: no control characters in a member's number or name (found {bad})")
    return Member(number, " ".join(name.split()), line)
