"""PBN 2.1 reading (Portable Bridge Notation, tistis.nl/pbn): games of tags, sections and tables.

What it reads, in PBN's import format: `%` escape lines (§2.4), games separated by semi-empty lines (§3),
tag pairs `[Name "value"]` with `\\"` and `\\\\` escapes, possibly several per line or spread over lines
(§3.2-3.3), `;` and `{...}` comments (§3.8), tag value inheritance `#` and `##` (§4.8), the Auction section
with notes, suffixes, NAGs and irregularity marks (§3.5, §3.9), the Play section (§3.6), and tables
(ScoreTable, TotalScoreTable, ...) with column specs such as `Contract\\4R` (§5.2). A table row is one line
(as in export format): a line with the wrong number of values is an error, since guessing would shift
every later row. Every error is a PbnError naming the line.

What real files do, where the meaning is clear, is read too: `[Deal "#"]` (and `#` Dealer, Vulnerable) copies the
previous game's value, as files with two games a board write on every second one; a DOS end-of-file mark
(Ctrl-Z, 0x1A) at the end is not part of the text (one before more text is an error, or lenient, a space).
`lenient` (a scorer's reading, `bidwire score-pbn`) also makes damage cost only what it damages, each left-out
part named with its line in PbnFile.damage: a stray `}`, a `{` never closed or a string never closed ends at its
line, a line of stray text is skipped, a tag that cannot be read is left out, an
Auction, Play or table section that cannot be read is left out of its game, and so is a Note or a `#` that
cannot be.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

SEATS = "NESW"
# Tags whose value never carries section data after it (PBN §3.4, ch. 4); any other tag may (§4.9).
PLAIN_TAGS = frozenset("""Event Site Date Board West North East South Dealer Vulnerable Deal Scoring Declarer
Contract Result Competition DealId Description FrenchMP Generator Hidden Room Termination Score ScoreIMP ScoreMP
ScorePercentage ScoreRubber ScoreRubberHistory BidSystemEW BidSystemNS PairEW PairNS WestNA NorthNA EastNA SouthNA
WestType NorthType EastType SouthType EventDate EventSponsor HomeTeam Round Section Stage Table VisitTeam Time
UTCDate UTCTime TimeControl TimeCall TimeCard Annotator AnnotatorNA Application Mode Note OptimumScore
ParContract""".split())
# §4.8 forbids `#` on these; real files write [Deal "#"] (with Dealer and Vulnerable) for a board's second game, whose
# meaning is clear: the previous game's deal. The others stay refused.
NO_INHERIT = frozenset("Declarer Contract Auction Play Note".split())
_DOS_EOF = "\x1a"
_LINE_END = re.compile(r"\r\n|\r|\n")  # only these: str.splitlines also breaks at \x85, \v, \f...
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*$")
_COLUMN = re.compile(r"([+-]?)([^\\]+?)(?:\\(\d+)([LRlr]?))?$")
_CALL = re.compile(r"(?:[1-7](?:C|D|H|S|NT|N)|PASS|XX|X|AP|-)$", re.IGNORECASE)
_ANNOTATION = re.compile(r"(=\d+=|\$\d+|!!|\?\?|!\?|\?!|!|\?)")
_CARD = re.compile(r"[SHDC][AKQJT98765432]$|-$", re.IGNORECASE)
_SUFFIXES = ("!", "?", "!!", "??", "!?", "?!")


class PbnError(ValueError):
    """Malformed PBN: the message names the line and says what was expected."""

    def __init__(self, line, message):
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


@dataclass
class Tag:
    name: str
    value: str
    line: int
    data: list[tuple[int, str]] = field(default_factory=list)  # section data: (line, token)


@dataclass
class Column:
    name: str
    width: int | None = None
    align: str | None = None
    order: str | None = None  # "+" descending, "-" ascending (§5.2)

    def spec(self):
        width = "" if self.width is None else f"\\{self.width}{self.align or ''}"
        return f"{self.order or ''}{self.name}{width}"


@dataclass
class Table:
    """A PBN table section: columns from the tag value, one row per line, '-'/'?' values kept as text."""

    name: str
    columns: list[Column]
    line: int
    rows: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    skipped: list[tuple[int, str]] = field(default_factory=list)  # (line, why) of rows that cannot be read

    def names(self):
        return [c.name for c in self.columns]


@dataclass
class Call:
    """One call of an Auction section with its annotations; `irregular` is '^I' (insufficient) if marked; `seat`
    the player who made it: from the first caller clockwise, each `^S` standing for the call of the player a call
    out of rotation skipped (§3.9), so `1H ^S 2H` is North 1H, South 2H when North deals."""

    call: str
    line: int
    note: int | None = None
    suffix: str | None = None
    nags: tuple[int, ...] = ()
    irregular: str | None = None
    seat: str | None = None


@dataclass
class Auction:
    first: str
    calls: list[Call]
    complete: bool  # ended by passes (or AP); False when cut short with '*' or '+'


@dataclass
class Game:
    line: int
    tags: dict[str, Tag] = field(default_factory=dict)
    notes: dict[str, dict[int, str]] = field(default_factory=lambda: {"auction": {}, "play": {}})
    auction: Auction | None = None
    tables: dict[str, Table] = field(default_factory=dict)

    def get(self, name, default=None):
        tag = self.tags.get(name)
        return default if tag is None else tag.value

    def line_of(self, name):
        tag = self.tags.get(name)
        return self.line if tag is None else tag.line


@dataclass
class PbnFile:
    games: list[Game]
    version: str | None = None
    export: bool = False
    damage: list[tuple[int | None, int, str]] = field(default_factory=list)  # lenient: (board, line, what was lost)


# --- tokens ------------------------------------------------------------------------------------------


def _tokens(text, meta, stray=None):
    """(kind, value, line) for '[', ']', 'word', 'string', 'blank'; comments dropped, escapes noted in meta.
    `stray` (lenient): a list that takes (line, message) of each stray `}`, whose line then ends there; a `{` on a
    line in `meta["unclosed"]` is a comment to the end of its line only."""
    in_brace = None
    unclosed = meta.get("unclosed", ())
    for n, raw in enumerate(_lines(text), 1):
        line = raw.rstrip("\r\n")
        i = 0
        if in_brace is not None:
            end = line.find("}")
            if end < 0:
                continue
            in_brace, i = None, end + 1
        elif line.startswith("%"):
            m = re.match(r"%\s*PBN\s+(\d+\.\d+)", line, re.IGNORECASE)
            if m:
                meta["version"] = m.group(1)
            if re.match(r"%\s*EXPORT\b", line, re.IGNORECASE):
                meta["export"] = True
            continue
        elif not line.strip():
            yield ("blank", None, n)
            continue
        while i < len(line):
            c = line[i]
            if c in " \t\v\f":
                i += 1
            elif c == ";":
                break
            elif c == "{":
                end = line.find("}", i + 1)
                if end < 0:
                    if n not in unclosed:
                        in_brace = n
                    break
                i = end + 1
            elif c in "[]":
                yield (c, c, n)
                i += 1
            elif c == "}":
                if stray is None:
                    raise PbnError(n, "} without an opening {: a comment is written { ... }")
                stray.append((n, "} without an opening {: the rest of the line is left out"))
                break
            elif c == '"':
                try:
                    value, i = _string(line, i, n)
                except PbnError as e:
                    if stray is None:
                        raise
                    stray.append((n, e.message + ": the rest of the line is left out"))
                    break
                yield ("string", value, n)
            else:
                j = i
                while j < len(line) and line[j] not in ' \t\v\f[]{};"':
                    j += 1
                yield ("word", line[i:j], n)
                i = j
    if in_brace is not None:
        raise PbnError(in_brace, "a { comment opened here is never closed with }")


def _lines(text):
    """The file's lines, split at CR LF, LF or CR alone. Not str.splitlines: it also ends a line at \x85, which is
    a Windows-1252 ellipsis read as ISO 8859-1 (real files have it in their notes), and at \v or \f, so every
    line after one would be named one line too far on."""
    lines = _LINE_END.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _string(line, i, n):
    out = []
    j = i + 1
    while j < len(line):
        c = line[j]
        if c == "\\" and j + 1 < len(line) and line[j + 1] in '"\\':
            out.append(line[j + 1])
            j += 2
        elif c == '"':
            return "".join(out), j + 1
        else:
            out.append(c)
            j += 1
    raise PbnError(n, 'a string opened here is not closed with " on the same line')


# --- games -------------------------------------------------------------------------------------------


def parse(text, *, lenient=False):
    """Read PBN text into a PbnFile; raises PbnError (with the line) for anything malformed. `lenient`: what a
    scorer needs (module docstring): damage is left out and named in PbnFile.damage, and a table row that cannot be
    read (the wrong number of values) is left out and named in its table's `skipped`."""
    if not isinstance(text, str):
        raise TypeError("parse() takes text; decode the file first (PBN is ISO 8859-1 or UTF-8)")
    end = text.find(_DOS_EOF)
    early = None
    if end >= 0:
        if not text[end:].strip(_DOS_EOF + " \t\r\n"):  # MS-DOS's end of file, at the end: not part of the text
            text = text[:end]
        else:  # before more text: dropping what follows would lose games unseen
            early = text[:end].count("\n") + 1
            if not lenient:
                raise PbnError(early, "a DOS end-of-file mark (Ctrl-Z) before the end of the file")
            text = text.replace(_DOS_EOF, " ")
    unclosed = set()
    while True:
        try:
            out = _parse(text, lenient, unclosed)
        except _Unclosed as e:  # lenient: that { ends at its line; read again from the start
            unclosed.add(e.line)
            continue
        if early is not None:
            out.damage.insert(0, (None, early, "a DOS end-of-file mark (Ctrl-Z) before the end of the file: read "
                                               "as a space, and the text after it too"))
        return out


class _Unclosed(Exception):
    def __init__(self, line):
        super().__init__(line)
        self.line = line


def _parse(text, lenient, unclosed):
    meta = {"unclosed": unclosed}
    damage = [(None, n, "a { comment opened here is never closed with }: it ends at the end of its line")
              for n in sorted(unclosed)]
    stray = [] if lenient else None
    games = []
    game = None
    section = None  # the tag whose section data follows
    sticky = {}  # §4.8 '##' values carried into later games
    previous = {}
    skipped_line = None
    tokens = _Tokens(_tokens(text, meta, stray))

    def finish(g):
        lost = [] if lenient else None
        done = _finish(g, previous, sticky, lost)
        if lost:
            board = g.get("Board")
            damage.extend((board, n, why) for n, why in lost)
        return done

    try:
        for kind, value, n in tokens:
            if kind == "blank":
                if game is not None:
                    games.append(finish(game))
                    previous = {name: t.value for name, t in game.tags.items()}
                game, section = None, None
            elif kind == "[":
                try:
                    tag = _tag(tokens, n)
                except PbnError as e:
                    if not lenient:
                        raise
                    damage.append((game.get("Board") if game else None, e.line, e.message + ": the tag is left out"))
                    section = None
                    continue
                if game is None:
                    game = Game(n)
                if tag.name == "Note":
                    try:
                        _note(game, tag, section)
                    except PbnError as e:
                        if not lenient:
                            raise
                        damage.append((game.get("Board"), e.line, e.message + ": the note is left out"))
                    continue
                if tag.name not in game.tags:  # import format: a repeated tag is ignored (§3.4)
                    game.tags[tag.name] = tag
                section = tag if tag.name not in PLAIN_TAGS else None
            elif kind == "]":
                if not lenient:
                    raise PbnError(n, "] without a tag: a tag is written [Name \"value\"]")
                damage.append((None, n, "] without a tag: left out"))
            elif section is None:
                shown = f'"{value}"' if kind == "string" else value
                if not lenient:
                    raise PbnError(n, f"unexpected {shown}: expected a tag such as [Board \"1\"] (section data "
                                      f"follows only Auction, Play or a table tag)")
                if skipped_line != n:  # one entry a line
                    damage.append((game.get("Board") if game else None, n,
                                   f"unexpected {shown} outside a section: the line's stray text is left out"))
                    skipped_line = n
            else:
                section.data.append((n, value))
    except PbnError as e:
        if lenient and "is never closed with }" in e.message:
            raise _Unclosed(e.line) from None
        raise
    if game is not None:
        games.append(finish(game))
    if not lenient:
        for g in games:
            for t in g.tables.values():
                if t.skipped:
                    raise PbnError(*t.skipped[0])
    damage += [(None, n, why) for n, why in stray or ()]
    damage.sort(key=lambda d: d[1])
    return PbnFile(games, meta.get("version"), meta.get("export", False), damage)


class _Tokens:
    """The token stream, with one token put back: a tag left unclosed gives back the `[` or the semi-empty line
    that showed it, so that a lenient reading goes on from there."""

    def __init__(self, it):
        self.it, self.back = it, []

    def __iter__(self):
        return self

    def __next__(self):
        return self.back.pop() if self.back else next(self.it)

    def put_back(self, token):
        self.back.append(token)


def _tag(tokens, n):
    parts = []
    for kind, value, line in tokens:
        if kind == "]":
            break
        if kind in ("blank", "["):
            tokens.put_back((kind, value, line))
            raise PbnError(n, "this tag is not closed with ]: a tag is written [Name \"value\"]")
        parts.append((kind, value, line))
    else:
        raise PbnError(n, "this tag is not closed with ] before the end of the file")
    if not parts or parts[0][0] != "word" or not _NAME.match(parts[0][1]):
        raise PbnError(n, "a tag must start with a name of letters, digits and _, as in [Board \"1\"]")
    name = parts[0][1]
    if len(parts) != 2 or parts[1][0] != "string":
        raise PbnError(n, f"tag [{name} ...] needs exactly one value in double quotes, e.g. [{name} \"...\"]")
    return Tag(name, parts[1][1], n)


def _note(game, tag, section):
    index, sep, text = tag.value.partition(":")
    if not sep or not index.strip().isdecimal():  # isdigit() takes '²', which int() refuses
        raise PbnError(tag.line, f'a note is written [Note "1:text"], not [Note "{tag.value}"]')
    where = "play" if section is not None and section.name == "Play" else "auction"
    game.notes[where][int(index)] = text


def _finish(game, previous, sticky, lost=None):
    """Inheritance (§4.8) and the game's sections. `lost` (lenient): a list that takes (line, why) of each part
    that cannot be read, which is then left out of the game instead of refusing the file."""
    for name, tag in list(game.tags.items()):
        v = tag.value
        if v.startswith("#") and name in NO_INHERIT:
            why = f"[{name}] may not inherit a value with # (PBN §4.8)"
            if lost is None:
                raise PbnError(tag.line, why)
            lost.append((tag.line, why + f": [{name}] is left out"))
            del game.tags[name]
            continue
        if v.startswith("##"):
            tag.value = sticky[name] = v[2:]
        elif v == "#":
            tag.value = previous.get(name, sticky.get(name, ""))
    for name, v in sticky.items():
        if name not in game.tags:
            game.tags[name] = Tag(name, v, game.line)
    for name, tag in list(game.tags.items()):
        try:
            if name == "Auction":
                game.auction = _auction(tag)
            elif name == "Play":
                _play(tag)
            elif name.endswith("Table") and name != "Table":
                game.tables[name] = _table(tag)
            # any other tag's section data (§4.9, a user-defined section) stays on the tag, uninterpreted
        except PbnError as e:
            if lost is None:
                raise
            lost.append((e.line, f"{e.message}: the {name} section is left out"))
            del game.tags[name]
    return game


# --- sections ----------------------------------------------------------------------------------------


def _auction(tag):
    first = tag.value.strip().upper()
    if first not in SEATS:
        raise PbnError(tag.line, f'[Auction "{tag.value}"] must name the first caller: W, N, E or S')
    calls = []
    irregular = None
    complete = False
    for n, token in tag.data:
        if token in ("*", "+"):
            break
        if token.upper() in ("^I", "^S"):
            if token.upper() == "^S":
                calls.append(Call("^S", n))
            else:
                irregular = "^I"
            continue
        m = re.match(r"([A-Za-z0-9-]*)(.*)$", token)
        word, rest = m.group(1), m.group(2)
        if word:
            if not _CALL.match(word):
                raise PbnError(n, f'"{word}" is not a call: use Pass, X, XX, AP, - or a bid 1C..7NT')
            up = word.upper()
            if up == "-" and any(c.call != "-" for c in calls):
                raise PbnError(n, "- marks a player before the first caller; it cannot follow a call")
            if up == "AP":
                calls.extend(_all_pass(calls, n))
                complete = True
                continue
            name = "Pass" if up == "PASS" else up + "T" if up.endswith("N") else up
            calls.append(Call(name, n, irregular=irregular))
            irregular = None
        elif not calls:
            raise PbnError(n, f'"{token}" comes before any call in the Auction section')
        while rest:
            a = _ANNOTATION.match(rest)
            if not a:
                raise PbnError(n, f'cannot read "{rest}" after a call: use =1= (note), !/? (suffix) or $n (NAG)')
            _annotate(calls[-1], a.group(1), n)
            rest = rest[a.end():]
    real = [c.call for c in calls if c.call not in ("-", "^S")]
    complete = complete or _ended(real)
    at = SEATS.index(first)
    for c in calls:  # "-" and "^S" each hold a seat in the rotation
        c.seat = SEATS[at]
        at = (at + 1) % 4
    return Auction(first, [c for c in calls if c.call != "-"], complete)


def _annotate(call, text, n):
    if text.startswith("="):
        index = int(text[1:-1])
        if not 1 <= index <= 32:
            raise PbnError(n, f"note {text}: a note index is 1-32")
        call.note = index
    elif text.startswith("$"):
        call.nags += (int(text[1:]),)
    elif text in _SUFFIXES:
        call.suffix = text


def _ended(calls):
    if calls == ["Pass"] * 4:
        return True
    return len(calls) >= 4 and any(c != "Pass" for c in calls) and calls[-3:] == ["Pass"] * 3


def _all_pass(calls, n):
    real = [c.call for c in calls if c.call not in ("-", "^S")]
    if not any(c != "Pass" for c in real):
        need = 4 - len(real)
    else:
        trailing = len(real) - max(i for i, c in enumerate(real) if c != "Pass") - 1
        need = 3 - trailing
    return [Call("Pass", n) for _ in range(max(need, 0))]


def _play(tag):
    if tag.value.strip().upper() not in SEATS:
        raise PbnError(tag.line, f'[Play "{tag.value}"] must name the opening leader: W, N, E or S')
    for n, token in tag.data:
        if token in ("*", "+") or token.upper() in ("^R", "^L"):
            continue
        m = re.match(r"([A-Za-z0-9-]*)(.*)$", token)
        if m.group(1) and not _CARD.match(m.group(1)):
            raise PbnError(n, f'"{m.group(1)}" is not a card: use a suit S/H/D/C and a rank A K Q J T 9..2, or -')
        if m.group(2) and not re.fullmatch(r"(=\d+=|\$\d+|[!?]{1,2})+", m.group(2)):
            raise PbnError(n, f'cannot read "{m.group(2)}" after a card')


def _table(tag):
    columns = []
    for spec in tag.value.split(";"):
        m = _COLUMN.match(spec.strip())
        if not m:
            raise PbnError(tag.line, f"[{tag.name}] column \"{spec}\" is not a column name (e.g. Contract\\4L)")
        order, name, width, align = m.groups()
        columns.append(Column(name, int(width) if width else None, align.upper() if align else None, order or None))
    table = Table(tag.name, columns, tag.line)
    names = table.names()
    by_line = {}
    for n, token in tag.data:
        by_line.setdefault(n, []).append(token)
    for n, values in by_line.items():
        if len(values) != len(names):
            table.skipped.append((n, f"{tag.name} row has {len(values)} values for {len(names)} columns "
                                     f"({', '.join(names)}); write - for a value that does not apply and put a "
                                     f"value with spaces in double quotes"))
            continue
        table.rows.append((n, dict(zip(names, values, strict=True))))
    return table


# --- deals -------------------------------------------------------------------------------------------

RANKS = "AKQJT98765432"


@dataclass(frozen=True)
class Deal:
    """The four hands, by seat 'N','E','S','W': a tuple of four suit strings (S H D C), or None if unknown."""

    hands: dict

    def pbn(self, first="N"):
        """The Deal tag value with `first` (in export format, the dealer) first."""
        i = SEATS.index(first)
        order = [SEATS[(i + k) % 4] for k in range(4)]
        return f"{first}:" + " ".join("-" if self.hands.get(s) is None else ".".join(self.hands[s]) for s in order)


def parse_deal(text, line=0):
    """Deal from a Deal tag value such as 'N:AKQ.JT9.876.5432 - - -' (ranks in any order, lower case allowed)."""
    first, sep, rest = text.strip().partition(":")
    first = first.strip().upper()
    if not sep or first not in SEATS:
        raise PbnError(line, f'[Deal "{text}"] must start with the first hand\'s seat and a colon, e.g. "N:..."')
    parts = rest.split()
    if len(parts) != 4:
        raise PbnError(line, f"[Deal] needs 4 hands separated by spaces (- for an unknown hand), not {len(parts)}")
    hands, seen, sizes = {}, set(), set()
    for k, part in enumerate(parts):
        seat = SEATS[(SEATS.index(first) + k) % 4]
        if part == "-":
            hands[seat] = None
            continue
        suits = part.upper().split(".")
        if len(suits) != 4:
            raise PbnError(line, f"[Deal] hand {part} needs 4 suits (spades.hearts.diamonds.clubs)")
        for suit, cards in zip("SHDC", suits, strict=True):
            for card in cards:
                if card not in RANKS:
                    raise PbnError(line, f"[Deal] {card} is not a rank (A K Q J T 9 ... 2) in hand {part}")
                if (suit, card) in seen:
                    raise PbnError(line, f"[Deal] {suit}{card} is dealt twice")
                seen.add((suit, card))
        hands[seat] = tuple("".join(sorted(cards, key=RANKS.index)) for cards in suits)
        sizes.add(sum(len(s) for s in suits))
    if len(sizes) > 1 or any(s > 13 for s in sizes):
        raise PbnError(line, "[Deal] every hand must hold the same number of cards, at most 13")
    return Deal(hands)
