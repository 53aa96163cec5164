"""Rendering on the display's frame buffer (MicroPython only: CPython has no framebuf; tests/conftest.py
leaves this module to the MicroPython run). Expected pixels come from MicroPython's own 8 x 8 font and from
the suit glyphs drawn below as pictures.
"""
import framebuf

from bidwire.unit import screens

HEART = (
    ".XX..XX.",
    "XXXXXXXX",
    "XXXXXXXX",
    "XXXXXXXX",
    ".XXXXXX.",
    "..XXXX..",
    "...XX...",
    "........",
)


def blank():
    return framebuf.FrameBuffer(bytearray(1024), 128, 64, framebuf.MONO_VLSB)


def test_text_rows_render_with_the_oled_font():
    rows = ["Bd12 DlrW EW", " W  >N   E   S  ", "", "", "", "", "N to call", "W q0"]
    got = blank()
    screens.draw(got, rows)
    want = blank()
    for y, r in enumerate(rows):
        want.text(r, 0, y * 8, 1)
    for y in range(64):
        for x in range(128):
            assert got.pixel(x, y) == want.pixel(x, y), (x, y)


def test_a_suit_is_drawn_as_its_glyph():
    got = blank()
    screens.draw(got, ["", "", "1" + screens.SUITS[2], "", "", "", "", ""])  # 1 heart, row 2
    for dy in range(8):
        for dx in range(8):
            assert got.pixel(8 + dx, 16 + dy) == (1 if HEART[dy][dx] == "X" else 0), (dx, dy)
    want = blank()
    want.text("1", 0, 16, 1)
    for dy in range(8):
        for dx in range(8):
            assert got.pixel(dx, 16 + dy) == want.pixel(dx, 16 + dy)


def test_draw_clears_the_previous_frame():
    fb = blank()
    fb.fill(1)
    screens.draw(fb, [""] * 8)
    for y in range(64):
        for x in range(128):
            assert fb.pixel(x, y) == 0
