"""Law 77 duplicate scoring (laws.md §6): a contract's score for declarer's side and for North-South."""
from bidwire.core import board
from bidwire.core.calls import STRAINS, parse_strain, side
from bidwire.core.compat import const

_DOUBLED = const(("", "X", "XX"))  # doubled 0/1/2: undoubled, doubled, redoubled

# §6.1 trick score, per odd trick bid, undoubled, by strain C D H S NT; NT's first trick scores 10 more.
_TRICK = const((20, 20, 30, 30, 30))
# §6.1 premiums, (not vulnerable, vulnerable)
_GAME = const((300, 500))
_PART = const(50)
_SLAM = const(((500, 750), (1000, 1500)))  # small slam (level 6), grand slam (level 7)
_INSULT = const((0, 50, 100))  # making a doubled / redoubled contract, by doubled
_OVER_X = const((100, 200))  # each overtrick doubled; redoubled is twice this
# §6.1 undertricks: undoubled each; doubled by undertrick number 1st, 2nd, 3rd, 4th and later.
# 1987 table: the NV doubled 4th+ undertrick is 300 (pre-1987: 200). Redoubled is twice doubled.
_UNDER = const((50, 100))
_UNDER_X = const(((100, 200, 200, 300), (200, 300, 300, 300)))


def _check(level, strain, doubled):
    if not isinstance(level, int) or not 1 <= level <= 7:
        raise ValueError(f"contract level must be 1-7, not {level}")
    if not isinstance(strain, int) or not 0 <= strain <= 4:
        raise ValueError(f"strain must be 0-4 (C D H S NT), not {strain}")
    if not isinstance(doubled, int) or not 0 <= doubled <= 2:
        raise ValueError(f"doubled must be 0, 1 or 2 (undoubled, X, XX), not {doubled}")


def score(level, strain, doubled, vulnerable, tricks):
    """Law 77 score for declarer's side (negative when defeated); honours are never scored."""
    _check(level, strain, doubled)
    if vulnerable not in (True, False):
        raise ValueError(f"vulnerable must be True or False, not {vulnerable}")
    if not isinstance(tricks, int) or not 0 <= tricks <= 13:
        raise ValueError(f"tricks taken by declarer must be 0-13, not {tricks}")
    v = 1 if vulnerable else 0
    need = level + 6
    if tricks >= need:
        # trick score: only odd tricks bid count; doubling multiplies it by 2, redoubling by 4
        tp = (_TRICK[strain] * level + (10 if strain == 4 else 0)) << doubled
        s = tp + (_GAME[v] if tp >= 100 else _PART)  # 100+ trick points is a game
        if level >= 6:
            s += _SLAM[level - 6][v]  # only a slam bid earns the premium
        s += _INSULT[doubled]
        each = _TRICK[strain] if doubled == 0 else _OVER_X[v] * doubled
        return s + (tricks - need) * each
    down = need - tricks
    if doubled == 0:
        return -down * _UNDER[v]
    row = _UNDER_X[v]
    pen = 0
    for k in range(down):
        pen += row[k if k < 3 else 3]
    return -pen * doubled  # redoubled (doubled == 2) is twice the doubled penalty


def parse_contract(text):
    """None if passed out ('Pass', 'P'), else (level, strain, doubled) from '4S', '3NTXX', '1N', '4sx'."""
    if not isinstance(text, str):
        raise ValueError("a contract must be text such as 4S, 3NTX, 6HXX or Pass")
    t = "".join(text.split()).upper()
    if t in ("P", "PASS"):
        return None
    doubled = 2 if t.endswith("XX") else 1 if t.endswith("X") else 0
    body = t[: len(t) - doubled]
    i = 0
    while "0" <= body[i:i + 1] <= "9":  # a slice, not body[i]: indexing a string interns its character as a qstr
        i += 1
    if i == 0:
        raise ValueError(f"cannot read contract {text}: use a level and strain such as 4S, 3NTX or Pass")
    level = int(body[:i])
    if not 1 <= level <= 7:
        raise ValueError(f"cannot read contract {text}: the level must be 1-7")
    strain = parse_strain(body[i:])
    if strain < 0:
        raise ValueError(f"cannot read contract {text}: the strain must be C, D, H, S or NT")
    return (level, strain, doubled)


def contract_name(level, strain, doubled):
    """'4SX' for (4, 3, 1)."""
    _check(level, strain, doubled)
    return str(level) + STRAINS[strain] + _DOUBLED[doubled]


def score_ns(contract, declarer, vul, tricks):
    """Score from North-South's side (§6.2 collector convention): +score if N/S declare, else -score.

    `contract` is text or None (passed out: 0 to both sides, Law 22); the vulnerability used is
    declarer's under board vulnerability code `vul` (0..3 None/NS/EW/Both).
    """
    c = contract if contract is None else parse_contract(contract)
    if c is None:
        return 0
    if not isinstance(declarer, int) or not 0 <= declarer <= 3:
        raise ValueError(f"declarer seat must be 0-3 (N E S W), not {declarer}")
    if not isinstance(vul, int) or not 0 <= vul <= 3:
        raise ValueError(f"vulnerability code must be 0-3 (None NS EW Both), not {vul}")
    s = score(c[0], c[1], c[2], board.is_vulnerable(vul, declarer), tricks)
    return s if side(declarer) == 0 else -s
