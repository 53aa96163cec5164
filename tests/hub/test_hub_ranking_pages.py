"""A released ranking of a big field, as a phone reads it: a page of PAGE (100) entries at a time, or one club's
entries, and the organiser's live progress with the head of the ranking only. Real PostgreSQL, two workers.

The figures are worked here from the scores uploaded (one board, so no Neuberg factor: a result scores 2 for
each result it beats and 1 for each other it ties, on a top of 2(n - 1)), not by the hub's code.
"""
import re
from datetime import UTC, datetime, timedelta

from hubkit import played, post_upload, upload_body

LATER = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
TRICKS = [13, 12, 11, 10, 9, 8, 7]  # 3NT by North, none vulnerable: 520, 490, 460, 430, 400, -50, -100
SCORE = {13: 520, 12: 490, 11: 460, 10: 430, 9: 400, 8: -50, 7: -100}
ROW = re.compile(r'<tr><td>([^<]*)</td><td><a href="/sims/[^/]+/pairs/([^/]+)/([^/]+)/(NS|EW)/([^"]+)">.*?'
                 r'<td class="n wide">([^<]*)</td>\s*<td class="n pct">([\d.]+)</td>', re.S)  # in club, %


def _tables(club, count, offset):
    return [(club, str(t), TRICKS[(t + offset) % len(TRICKS)]) for t in range(1, count + 1)]


def _setup(hub):
    tables = _tables("BIG", 120, 0) + _tables("SMALL", 5, 3)
    with hub.organiser() as org:
        r = org.post("/api/v1/sims", json={"id": "paged", "name": "Paged sim", "release_at": LATER, "boards": [1]})
        assert r.status_code == 201, r.text
        secrets = {c: org.post("/api/v1/sims/paged/clubs", json={"id": c, "name": f"Club {c}"}).json()["secret"]
                   for c in ("BIG", "SMALL")}
    for club in ("BIG", "SMALL"):
        results = [played("A", 1, t, t, "3NT", "N", tricks, SCORE[tricks]) for c, t, tricks in tables if c == club]
        r = post_upload(hub.url, club, secrets[club], upload_body("paged", club, 1, results))
        assert r.status_code == 200, r.text
    with hub.organiser() as org:  # every result in before the release (one first seen after it is held)
        assert org.patch("/api/v1/sims/paged", json={"release_at": datetime.now(UTC).isoformat()}).status_code == 200
    return tables


def _worked(tables):
    """{(club, number, direction): percentage to 2 places}, from the scores alone."""
    scores = [SCORE[tricks] for _, _, tricks in tables]
    n = len(scores)
    out = {}
    for (club, t, tricks) in tables:
        s = SCORE[tricks]
        ns = 2 * sum(x < s for x in scores) + sum(x == s for x in scores) - 1
        out[(club, t, "NS")] = f"{100 * ns / (2 * (n - 1)):.2f}"
        out[(club, t, "EW")] = f"{100 * (2 * (n - 1) - ns) / (2 * (n - 1)):.2f}"
    return out


def _rows(html):
    return [(rank, club, number, direction, in_club, pct)
            for rank, club, _section, direction, number, in_club, pct in ROW.findall(html)]


def test_a_big_ranking_is_read_a_page_or_a_club_at_a_time(hub):
    tables = _setup(hub)
    worked = _worked(tables)
    seen = []
    with hub.public() as web:
        pages = [web.get("/sims/paged", params={"page": p}) for p in (1, 2, 3)]
        for r in pages:
            assert r.status_code == 200
        rows = [_rows(r.text) for r in pages]
        assert [len(x) for x in rows] == [100, 100, 50]  # 125 NS then 125 EW, 100 a page
        assert "Entries 1 to 100 of 250." in pages[0].text and 'href="?page=2">Next</a>' in pages[0].text
        assert "Page 3 of 3" in pages[2].text and "Next</a>" not in pages[2].text
        for page in rows:
            seen += page
        assert sorted((c, n, d) for _, c, n, d, _, _ in seen) == sorted(worked)  # every pair once
        for _, club, number, direction, _, pct in seen:
            assert pct == worked[(club, number, direction)]
        ns = [float(pct) for _, _, _, d, _, _ in seen if d == "NS"]
        assert ns == sorted(ns, reverse=True)  # best first across the pages
        # A page past the last shows the last; a page that is not a number is refused, naming the field.
        assert _rows(web.get("/sims/paged", params={"page": 9}).text) == rows[2]
        bad = web.get("/sims/paged", params={"page": "x"})
        assert bad.status_code == 422 and "page" in bad.text

        small = web.get("/sims/paged", params={"club": "SMALL"})
        assert small.status_code == 200
        mine = _rows(small.text)
        assert sorted((c, n, d) for _, c, n, d, _, _ in mine) == sorted(
            (c, t, d) for c, t, _ in tables if c == "SMALL" for d in ("NS", "EW"))
        assert "Entries 1 to 10 of 10 from Club SMALL." in small.text
        # SMALL's tables 1 to 5 score 400, -50, -100, 520 and 490 for NS: in the club NS rank 3, 4, 5, 1, 2, and
        # EW, who score the other way, 3, 2, 1, 5, 4.
        in_club = {(n, d): rank for _, _, n, d, rank, _ in mine}
        assert [in_club[(t, "NS")] for t in "12345"] == ["3", "4", "5", "1", "2"]
        assert [in_club[(t, "EW")] for t in "12345"] == ["3", "2", "1", "5", "4"]
        for _, club, number, direction, _, pct in mine:
            assert pct == worked[(club, number, direction)]
        assert web.get("/sims/paged", params={"club": "NOPE"}).status_code == 404
        assert _rows(web.get("/sims/paged", params={"club": ""}).text) == rows[0]  # the form's "All clubs"

        # The board's page: every score's frequency, and the traveller a club at a time once it is long.
        board = web.get("/sims/paged/boards/1")
        assert board.status_code == 200 and "125 results: choose a club to see its tables." in board.text
        freq = dict(re.findall(r'<tr><td class="n">(-?\d+)</td><td class="n">(\d+)</td>', board.text))
        counts = {}
        for _, _, tricks in tables:
            counts[str(SCORE[tricks])] = counts.get(str(SCORE[tricks]), 0) + 1
        assert {k: int(v) for k, v in freq.items()} == counts
        assert "/pairs/" not in board.text
        small_board = web.get("/sims/paged/boards/1", params={"club": "SMALL"}).text
        listed = re.findall(r'/pairs/(\w+)/A/NS/(\d+)"', small_board)
        assert sorted(listed) == [("SMALL", t) for t in "12345"]

    with hub.organiser() as org:
        p = org.get("/api/v1/sims/paged/progress").json()
    assert p["pairs"] == 250 and len(p["ranking"]) == 100
    assert [(e["club"], e["pair"], e["direction"]) for e in p["ranking"]] == [(c, n, d) for _, c, n, d, _, _ in
                                                                            rows[0]]
