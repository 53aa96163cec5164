"""Law 77 scoring checked against endplay's independent implementation (CPython only)."""
import json
from pathlib import Path

import pytest
from endplay.types import Contract, Denom, Penalty, Player, Vul
from hypothesis import given
from hypothesis import strategies as st

from bidwire.core import score
from bidwire.core.calls import STRAINS

# calls.py strain order C D H S NT -> endplay Denom; doubled 0/1/2 -> Penalty
DENOMS = (Denom.clubs, Denom.diamonds, Denom.hearts, Denom.spades, Denom.nt)
PENALTIES = (Penalty.passed, Penalty.doubled, Penalty.redoubled)
VUL_TAGS = ("NV", "V")
LEVEL_STRAINS = [(level, strain) for level in range(1, 8) for strain in range(5)]
VECTORS = json.loads((Path(__file__).parents[1] / "vectors" / "scores.json").read_text())["vectors"]


def endplay_score(level, strain, doubled, vulnerable, tricks):
    # Declarer North; Vul.ns makes North vulnerable, Vul.ew leaves North not vulnerable.
    c = Contract(
        level=level,
        denom=DENOMS[strain],
        declarer=Player.north,
        penalty=PENALTIES[doubled],
        result=tricks - (level + 6),
    )
    return c.score(Vul.ns if vulnerable else Vul.ew)


def test_endplay_vulnerability_mapping():
    # Guard the mapping above: declarer East is vulnerable under Vul.ew / Vul.both only.
    c = Contract(level=4, denom=Denom.spades, declarer=Player.east, penalty=Penalty.doubled, result=-4)
    assert c.score(Vul.ew) == c.score(Vul.both) == -1100
    assert c.score(Vul.ns) == c.score(Vul.none) == -800


@pytest.mark.parametrize(
    "level,strain", LEVEL_STRAINS, ids=[f"{lv}{STRAINS[s]}" for lv, s in LEVEL_STRAINS]
)
def test_law77_score_matches_endplay(level, strain):
    bad = []
    for doubled in range(3):
        for vul in (False, True):
            for tricks in range(14):
                ours = score.score(level, strain, doubled, vul, tricks)
                theirs = endplay_score(level, strain, doubled, vul, tricks)
                if ours != theirs:
                    name = score.contract_name(level, strain, doubled)
                    bad.append(f"{name}-{VUL_TAGS[vul]}-{tricks}: ours {ours}, endplay {theirs}")
    assert not bad, "; ".join(bad)


@pytest.mark.parametrize("case", [v for v in VECTORS if v["tricks"] is not None], ids=lambda v: v["id"])
def test_law77_vector_agrees_with_endplay(case):
    level, strain, doubled = score.parse_contract(case["contract"])
    theirs = endplay_score(level, strain, doubled, case["vulnerable"], case["tricks"])
    want = case["score"]
    assert theirs == want, f"{case['id']} {case['contract']}: vector {want}, endplay {theirs}"


def test_law77_passed_out_matches_endplay():
    assert Contract("Pass").score(Vul.both) == 0 == score.score_ns("Pass", 0, 3, None)


@given(
    level=st.integers(1, 7),
    strain=st.integers(0, 4),
    doubled=st.integers(0, 2),
    vul=st.integers(0, 3),
    tricks=st.integers(0, 13),
    seat=st.integers(0, 3),
)
def test_law77_score_ns_antisymmetric_by_declarer_side(level, strain, doubled, vul, tricks, seat):
    text = score.contract_name(level, strain, doubled)
    ns = score.score_ns(text, seat, vul, tricks)
    # The same result by the other side with the vulnerabilities swapped scores the negation.
    swapped = {0: 0, 1: 2, 2: 1, 3: 3}[vul]
    assert score.score_ns(text, (seat + 1) & 3, swapped, tricks) == -ns
    own = score.score(level, strain, doubled, vul in (3, 1 + (seat & 1)), tricks)
    assert ns == (own if seat & 1 == 0 else -own)
