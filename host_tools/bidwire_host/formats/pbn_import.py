"""From parsed PBN games to scoring results and hand records (PBN 2.1 §3.4, §4.2, §5.7; laws.md §6, §9.3).

Results come from each board's ScoreTable (per-table rows, or frequency rows with a Multiplicity column),
or, for a board with no ScoreTable, from the games' own Contract/Declarer/Result/Score tags (one game per
table, with PairNS/PairEW, or HomeTeam/VisitTeam and Room: the home team sits NS in the open room).

Every score is checked against the core's Law 77: a row whose score disagrees with its contract and
tricks, or whose bare score no contract can produce, becomes a Problem and is not scored. A value that
cannot be read at all (a Result of "ten", an unknown declarer) is malformed PBN: a PbnError with its line.
Artificial scores are marked with a caret (§5.2): "^A+", "^A-", "^60" in a score or percentage column;
"^-620" in a score column is a director's assigned score (not checked against Law 77).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from bidwire.core import board as core_board
from bidwire.core import readback
from bidwire.core.score import parse_contract
from bidwire_host.formats.pbn import SEATS, PbnError, parse, parse_deal
from bidwire_host.scoring.model import (
    Artificial,
    Assigned,
    Problem,
    Result,
    ScoringError,
    artificial_code,
    law77_score,
    possible_scores,
)

_ASSIGNED = re.compile(r"[+-]?\d+")  # "^-620": an assigned score (what int() reads: not "^+-5", not "^²")
MAX_MULTIPLICITY = 10_000  # a frequency row stands for this many tables at most (a typo must not exhaust memory)


@dataclass
class HandRecord:
    """A board's hand record: Law 2 dealer and vulnerability unless the file says otherwise, and the deal."""

    board: int
    dealer: str
    vulnerable: int  # 0-3 None NS EW Both
    deal: object | None = None  # pbn.Deal


@dataclass
class Imported:
    results: list[Result] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)  # results rows not scored
    hands: dict[int, HandRecord] = field(default_factory=dict)
    damage: list[Problem] = field(default_factory=list)  # not `strict`: what else was left out (a deal, a play...)
    # `as_published`: a score Law 77 would not give is scored as the file has it, and named here instead
    as_published: bool = False
    published: list[Problem] = field(default_factory=list)
    # the NS percentage a ScoreTable row of a played result gives ({(board, line): float}): what the file's own
    # scoring made of it (score_pbn.percentage_method names that scoring)
    percentages: dict = field(default_factory=dict)


def load(text, *, strict=True, as_published=False):
    """Parse PBN text and read its results, problems and hand records. Not `strict`: a results row that cannot be
    read at all (a contract 8S, a Result of "ten", a row of the wrong width) is left out as a Problem naming its
    board and line, and the others are read; damage elsewhere costs only what it damages (pbn.parse's `lenient`;
    here a deal or dealer that cannot be read drops that board's hand record, a board number or vulnerability
    that cannot be read that game's results), each named in `damage`; strict, any of it is a PbnError for the
    whole file. `as_published`: a row whose score is not the Law 77 score of its contract (an event that kept a
    score the law would not give) is scored with the file's score, and named in `published`, not in `problems`."""
    parsed = parse(text, lenient=not strict)
    out = read(parsed.games, strict=strict, as_published=as_published)
    out.damage[:0] = [Problem(_number(board), why, line) for board, line, why in parsed.damage]
    out.damage.sort(key=lambda p: p.line or 0)
    return out


def _number(board):
    return int(board) if board and board.strip().isdecimal() else None


def read(games, *, strict=True, as_published=False):
    out = Imported(as_published=as_published)
    tables = {}  # board -> (game, table) of the first ScoreTable
    plain = []  # (board, game) of games with a result in their tags and no ScoreTable
    bad_deals = set()  # (board, Deal value) of the deals that cannot be read
    for game in games:
        try:
            number = _board(game)
            if number is None:
                continue
            vul = _vul(game, number)
        except PbnError as e:
            if strict:
                raise
            out.damage.append(Problem(_number(game.get("Board")), f"{e.message}: the game's results are left out",
                                      e.line))
            continue
        try:
            _hand(out, game, number, vul)
        except PbnError as e:
            if strict:
                raise
            if (number, game.get("Deal")) not in bad_deals:  # a [Deal "#"] copying it is the same damage
                out.damage.append(Problem(number, f"{e.message}: board {number}'s hand record is left out", e.line))
            bad_deals.add((number, game.get("Deal")))
        table = game.tables.get("ScoreTable")
        if table is not None:
            first = tables.get(number)
            if first is None:
                tables[number] = (game, table, vul)
            elif [r for _, r in first[1].rows] != [r for _, r in table.rows]:
                out.problems.append(Problem(number, f"a second, different ScoreTable for board {number}; only "
                                                    f"the one at line {first[1].line} is used", table.line))
        elif _has_result(game):
            plain.append((number, game, vul))
    for number, (_, table, vul) in sorted(tables.items()):
        out.problems += [Problem(number, why, line) for line, why in table.skipped]
        for line, row in table.rows:
            _unless_junk(out, strict, number, line, _row, out, number, vul, line, row)
    for number, game, vul in plain:
        if number not in tables:
            _unless_junk(out, strict, number, game.line_of("Contract"), _game_result, out, number, game, vul)
    return out


def _unless_junk(out, strict, number, line, read_one, *args):
    """read_one(*args); when not `strict`, a row it cannot read becomes a Problem and the others go on."""
    if strict:
        return read_one(*args)
    try:
        return read_one(*args)
    except PbnError as e:
        out.problems.append(Problem(number, e.message, e.line or line))


def _board(game):
    tag = game.tags.get("Board")
    if tag is None:
        if _has_result(game) or "ScoreTable" in game.tables:
            raise PbnError(game.line, "this game has results but no [Board] tag")
        return None
    value = tag.value.strip()
    if not value.isdecimal() or int(value) < 1:  # isdigit() takes '²', which int() refuses
        if not _has_result(game) and "ScoreTable" not in game.tables and value in ("", "?"):
            return None
        raise PbnError(tag.line, f'[Board "{tag.value}"] must be a board number from 1')
    return int(value)


def _vul(game, number):
    tag = game.tags.get("Vulnerable")
    if tag is None or tag.value.strip() in ("", "?"):
        return core_board.vulnerability(number)
    try:
        return readback.parse_vul(tag.value)
    except ValueError as e:
        raise PbnError(tag.line, f"[Vulnerable] {e}") from None


def _hand(out, game, number, vul):
    dealer = game.get("Dealer", "").strip().upper().replace("?", "")
    if dealer and dealer not in SEATS:
        raise PbnError(game.line_of("Dealer"), f'[Dealer "{game.get("Dealer")}"] must be W, N, E or S')
    deal_text = game.get("Deal", "").strip()
    deal = parse_deal(deal_text, game.line_of("Deal")) if deal_text and deal_text != "?" else None
    if number not in out.hands or (deal is not None and out.hands[number].deal is None):
        out.hands[number] = HandRecord(number, dealer or SEATS[core_board.dealer(number)], vul, deal)


def _has_result(game):
    contract = game.get("Contract", "").strip()
    return contract not in ("", "?")


def _value(v):
    return None if v is None or v in ("-", "?", "") else v


def _int(text, what, line):
    try:
        return int(text)
    except ValueError:
        raise PbnError(line, f"{what} {text} is not a whole number") from None


def _tricks(text, contract, line):
    """Tricks won by declarer: '0'..'13', or relative to the contract: '=', '+1', '-2'."""
    t = text.lstrip("^")
    if t == "=" or t[:1] in "+-":
        if contract is None:
            raise PbnError(line, f"result {text} is relative to a contract, and there is none")
        return contract[0] + 6 + (0 if t == "=" else _int(t, "result", line))
    return _int(t, "result (tricks won by declarer)", line)


def _contract(text, line):
    t = text.strip().lstrip("^")
    if t.upper() == "AP":
        return None, "Pass"
    try:
        return parse_contract(t), t
    except ValueError as e:
        raise PbnError(line, str(e)) from None


def _declarer(text, line):
    t = (text or "").strip().lstrip("^").upper()
    if t not in SEATS or not t:
        raise PbnError(line, f"declarer {text} must be W, N, E or S")
    return t


def _row(out, number, vul, line, row):
    pick = {k: _value(v) for k, v in row.items()}
    count = 1
    if pick.get("Multiplicity") is not None:
        count = _int(pick["Multiplicity"], "Multiplicity", line)
        if not 1 <= count <= MAX_MULTIPLICITY:
            raise PbnError(line, f"Multiplicity {count} must be from 1 to {MAX_MULTIPLICITY}")
    ns = pick.get("PairId_NS") or pick.get("Names_NS")
    ew = pick.get("PairId_EW") or pick.get("Names_EW")
    table = pick.get("Table")
    result = _read_result(out, number, vul, line, pick, ns, ew, table)
    if result is not None:
        out.results.extend([result] * count)
        pct = pick.get("Percentage_NS")
        if result.adjusted is None and pct is not None and re.fullmatch(r"\d{1,3}(\.\d+)?", pct):
            out.percentages[(number, line)] = float(pct)


def _caret(v):
    return v is not None and v.startswith("^")


def _read_result(out, number, vul, line, pick, ns, ew, table):
    s_ns, s_ew = pick.get("Score_NS"), pick.get("Score_EW")
    p_ns, p_ew = pick.get("Percentage_NS"), pick.get("Percentage_EW")
    extra = {"table": table, "line": line}
    if any(_caret(v) for v in (s_ns, s_ew, p_ns, p_ew)):
        adjusted = _adjusted(number, line, s_ns, s_ew, p_ns, p_ew, out)
        return None if adjusted is None else Result(number, ns, ew, adjusted=adjusted, **extra)
    contract_text = pick.get("Contract")
    score = _score(number, line, s_ns, s_ew, out)
    if score is False:
        return None
    if contract_text is None:
        if score is None:
            out.problems.append(Problem(number, "no contract and no score: nothing to score", line))
            return None
        if score not in possible_scores(vul):
            if _refused(out, number, line, f"score {score} for NS is not a Law 77 score on a board with "
                                                f"vulnerability {core_board.VUL_NAMES[vul]}"):
                return None
        return Result(number, ns, ew, score, **extra)
    contract, name = _contract(contract_text, line)
    declarer = tricks = None
    if contract is not None:
        declarer = _declarer(pick.get("Declarer"), line)
        if pick.get("Result") is None:
            if score is None:
                out.problems.append(Problem(number, f"{name} by {declarer}: no tricks and no score", line))
                return None
        else:
            tricks = _tricks(pick["Result"], contract, line)
    return _checked(out, number, vul, line, name, declarer, tricks, score, ns, ew, extra)


def _refused(out, number, line, why):
    """A score Law 77 would not give: a problem, not scored (True); or, reading `as_published`, kept as the file
    has it and named in `published` (False)."""
    if not out.as_published:
        out.problems.append(Problem(number, why, line))
        return True
    out.published.append(Problem(number, why + ": scored as published", line))
    return False


def _checked(out, number, vul, line, name, declarer, tricks, score, ns, ew, extra):
    """The Result if the Law 77 score of contract/declarer/tricks agrees with the score given (if any)."""
    if declarer is not None and tricks is None:
        # Only a score: it must be what the contract scores with some number of tricks, which it then gives.
        made = [t for t in range(14) if law77_score(number, name, declarer, t, vul) == score]
        if not made:
            if _refused(out, number, line, f"score {score} for NS is not a Law 77 score of {name} by {declarer} "
                                                f"(vulnerability {core_board.VUL_NAMES[vul]})"):
                return None
            return Result(number, ns, ew, score, name, declarer, None, **extra)
        tricks = made[0]
    if tricks is not None and not 0 <= tricks <= 13:
        out.problems.append(Problem(number, f"{name} by {declarer} with {tricks} tricks: tricks must be 0-13", line))
        return None
    try:
        law77 = law77_score(number, name, declarer, tricks, vul)
    except ScoringError as e:
        out.problems.append(Problem(number, str(e), line))
        return None
    if score is not None and score != law77:
        made = f"{name} by {declarer} taking {tricks}" if declarer else name
        if _refused(out, number, line, f"score {score} for NS is not the Law 77 score of {made} ({law77} with "
                                       f"vulnerability {core_board.VUL_NAMES[vul]})"):
            return None
        return Result(number, ns, ew, score, name, declarer, tricks, **extra)
    return Result(number, ns, ew, law77, name, declarer, tricks, **extra)


def _score(number, line, s_ns, s_ew, out):
    """NS score from Score_NS/Score_EW (either may be '-'); None if neither; False (problem) if they disagree."""
    a = None if s_ns is None else _int(s_ns, "Score_NS", line)
    b = None if s_ew is None else _int(s_ew, "Score_EW", line)
    if a is not None and b is not None and a != -b:
        out.problems.append(Problem(number, f"Score_NS {a} and Score_EW {b} do not balance", line))
        return False
    return a if a is not None else None if b is None else -b


def _adjusted(number, line, s_ns, s_ew, p_ns, p_ew, out):
    """An artificial (^A+, ^60) or assigned (^-620) score from caret-marked columns."""
    codes = []
    for score, pct, sign in ((s_ns, p_ns, 1), (s_ew, p_ew, -1)):
        if _caret(score) and not _ASSIGNED.fullmatch(score[1:]):
            codes.append(("art", score[1:]))
        elif _caret(score):
            codes.append(("score", sign * int(score[1:])))
        elif _caret(pct):
            codes.append(("art", pct[1:]))
        else:
            codes.append(None)
    try:
        if all(c and c[0] == "art" for c in codes):
            return Artificial(artificial_code(codes[0][1]), artificial_code(codes[1][1]))
        if all(c is None or c[0] == "score" for c in codes):
            ns_score, ew_score = (c[1] if c else None for c in codes)
            ns_score = ew_score if ns_score is None else ns_score
            return Assigned(ns_score, ns_score if ew_score is None else ew_score)
    except (ScoringError, ValueError) as e:
        raise PbnError(line, str(e)) from None
    out.problems.append(Problem(number, "an artificial score must be given for both sides (e.g. ^A+ and ^A-)", line))
    return None


def _game_result(out, number, game, vul):
    line = game.line_of("Contract")
    ns, ew = _pairs(game)
    contract, name = _contract(game.get("Contract"), line)
    declarer = tricks = score = None
    if contract is not None:
        declarer = _declarer(game.get("Declarer"), game.line_of("Declarer"))
        result_text = game.get("Result", "").strip()
        if result_text not in ("", "?"):
            tricks = _tag_tricks(result_text, declarer, contract, game.line_of("Result"))
        score_text = game.get("Score", "").strip()
        if score_text not in ("", "?"):
            score = _tag_score(score_text, declarer, game.line_of("Score"))
        if tricks is None and score is None:
            out.problems.append(Problem(number, f"{name} by {declarer}: no Result and no Score", line))
            return
    extra = {"table": game.get("Table") or None, "line": line}
    result = _checked(out, number, vul, line, name, declarer, tricks, score, ns, ew, extra)
    if result is not None:
        out.results.append(result)


def _pairs(game):
    ns, ew = game.get("PairNS"), game.get("PairEW")
    if ns or ew:
        return ns or None, ew or None
    room = game.get("Room", "").strip().lower()
    home, visit = game.get("HomeTeam") or None, game.get("VisitTeam") or None
    if room == "open":
        return home, visit
    if room == "closed":
        return visit, home
    return None, None


def _sides(text, line, what):
    """Values of a Result/Score tag: '<n>' (declarer's), 'NS <n>', 'EW <n>', 'NS <n> EW <m>' (PBN §3.4.15, §4.2.1)."""
    parts = text.lstrip("^").split()
    if len(parts) == 1:
        return {"decl": _int(parts[0], what, line)}
    if len(parts) in (2, 4) and all(p.upper() in ("NS", "EW") for p in parts[::2]):
        return {p.upper(): _int(v, what, line) for p, v in zip(parts[::2], parts[1::2], strict=True)}
    raise PbnError(line, f'cannot read [{what} "{text}"]: use "<n>", "NS <n>", "EW <n>" or "NS <n> EW <m>"')


def _tag_tricks(text, declarer, contract, line):
    if text.lstrip("^") == "=" or text.lstrip("^")[:1] in "+-":
        return _tricks(text, contract, line)
    sides = _sides(text, line, "Result")
    own = "NS" if declarer in "NS" else "EW"
    other = "EW" if own == "NS" else "NS"
    if "decl" in sides:
        return sides["decl"]
    return sides[own] if own in sides else 13 - sides[other]


def _tag_score(text, declarer, line):
    sides = _sides(text, line, "Score")
    if "decl" in sides:
        return sides["decl"] if declarer in "NS" else -sides["decl"]
    return sides["NS"] if "NS" in sides else -sides["EW"]
