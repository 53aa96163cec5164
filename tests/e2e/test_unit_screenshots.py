"""Pictures of the unit's screen for docs/unit.md, taken from the panel's own memory on the device model (the
frozen 32-bit build): the sim board's `shot` line saves what the SSD1306 holds, page by page, as a PBM, and this
test turns it into a PNG in build/screenshots/ (copies in docs/img/).

Each picture is checked against the text frame the unit printed at the same moment: a page of the panel is lit
exactly where that row has text, so a picture can neither miss a row nor keep one from an earlier screen.

Board 1: dealer N, nobody vulnerable. The director's PIN is 1234.
"""
from pathlib import Path

import pytest
from PIL import Image, ImageOps
from vunit import VUnit, write_config
from waiting import wait_until

SHOTS = Path(__file__).parents[2] / "build" / "screenshots"
PIN = ["{s} TD", "{s} TD", "{s} 1", "{s} 2", "{s} 3", "{s} 4"]  # the director called at seat s, then his PIN
ONE_SPADE = ["N PASS", "N 1", "N S", "E PASS", "S PASS", "W PASS"]  # set-up, then board 1: 1S by N, E to lead
LAW_26 = ["N PASS", "S 1", "S H", *[p.format(s="W") for p in PIN], "W 1", "N PASS", "E PASS", "S PASS", "W 1", "W S",
          "N PASS", "E PASS", "S PASS"]  # S's 1H out of rotation rejected: N passes throughout, N leads v 1S by W

SCREENS = [  # (picture, key lines, the rows the picture must show: row index -> text)
    ("unit-board-start", ["N PASS"], {3: "Board 1", 4: "Dealer N", 6: "N to call"}),
    ("unit-auction", ["N PASS", "N 1", "N NT", "E PASS", "S 2", "S C", "N ALERT", "W PASS"], {6: "N to call"}),
    ("unit-irregular", ["N PASS", "E 1", "E S"], {0: "IRREGULAR L31"}),
    ("unit-director-menu", ["N PASS", "E 1", "E S", *[p.format(s="S") for p in PIN]], {0: "DIRECTOR L31"}),
    ("unit-law26-lead", LAW_26, {3: "L26 N's lead:", 4: "W may bar/req H", 5: "1S by W", 6: "N: lead suit"}),
    ("unit-result-entry", [*ONE_SPADE, "E H"], {3: "tricks 7 =", 6: "PASS: enter"}),
    ("unit-score", [*ONE_SPADE, "E H", "N PASS", "E PASS"], {1: "1S N =", 2: "NS 80", 6: "PASS: next"}),
]


def read_pbm(path, timeout=20):
    """The 128 x 64 picture the unit saved, as 8 pages of 128 columns, each column a byte (top pixel low)."""
    wait_until(lambda: path.exists() and path.stat().st_size == 10 + 1024, timeout, 0.05,
               f"the unit's picture at {path}")
    data = path.read_bytes()
    assert data[:10] == b"P4\n128 64\n"
    rows = [data[10 + 16 * y:10 + 16 * (y + 1)] for y in range(64)]  # 16 bytes a pixel row, leftmost pixel high
    return [[sum(1 << (y - 8 * p) for y in range(8 * p, 8 * p + 8) if rows[y][x // 8] & (0x80 >> x % 8))
             for x in range(128)] for p in range(8)]


def save_png(pbm, png):
    """The panel as a reader sees one: lit pixels light on a dark glass, each pixel 4 x 4."""
    with Image.open(pbm) as image:
        lit = ImageOps.invert(image.convert("L"))  # PBM's 1 is black; the unit's 1 is a lit pixel
        glass = ImageOps.colorize(lit, black="#0b1016", white="#bfe9ff")
        glass.resize((128 * 4, 64 * 4), Image.NEAREST).save(png)


@pytest.mark.parametrize("name, keys, shown", SCREENS, ids=[s[0] for s in SCREENS])
def test_a_picture_of_the_panel_shows_the_rows_of_the_frame_and_nothing_else(tmp_path, name, keys, shown):
    unit = VUnit(write_config(tmp_path / "unit.json", tmp_path / "state"))
    try:
        for line in keys:
            unit.send(line)
        rows = unit.frame()
        pbm = tmp_path / f"{name}.pbm"
        unit.write(f"shot {pbm}")
        pages = read_pbm(pbm)
    finally:
        unit.write("quit")
        unit.finish()
    assert {i: rows[i] for i in shown} == shown
    lit = [any(page) for page in pages]
    assert lit == [bool(r.strip()) for r in rows], f"panel pages lit {lit} for the frame {rows}"
    for row, page in zip(rows, pages, strict=True):  # 8 columns a character: nothing lit right of a row's last one
        assert not any(page[8 * len(row):]), f"pixels right of {row!r}"
    SHOTS.mkdir(parents=True, exist_ok=True)
    save_png(pbm, SHOTS / f"{name}.png")
