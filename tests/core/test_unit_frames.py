"""Rendering on the display, a text row at a time onto the panel's pages (MicroPython only: CPython has no
framebuf; tests/conftest.py leaves this module to the MicroPython run). Expected pixels come from MicroPython's
own 8 x 8 font, drawn on a whole 128 x 64 frame, and from the suit glyphs drawn below as pictures.
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
HEART_GLYPH = "\x03"  # a heart in a row (screens.py: the suits C D H S are chr 1-4)
ROWS = ["Bd12 DlrW EW", " W  >N   E   S  ", "", "", "", "", "N to call", "W q0"]


class Panel(framebuf.FrameBuffer):
    """A display as hal.py describes it: a one-page buffer (128 x 8) and page(n), which copies it to page n of
    the panel's memory, read here as a 128 x 64 frame. `sent` lists the pages written, in order."""

    def __init__(self):
        self.buffer = bytearray(128)
        super().__init__(self.buffer, 128, 8, framebuf.MONO_VLSB)
        self.gddram = bytearray(1024)
        self.frame = framebuf.FrameBuffer(self.gddram, 128, 64, framebuf.MONO_VLSB)
        self.sent = []

    def page(self, n):
        self.gddram[n * 128:(n + 1) * 128] = self.buffer
        self.sent.append(n)


def blank():
    return framebuf.FrameBuffer(bytearray(1024), 128, 64, framebuf.MONO_VLSB)


def written(rows):
    """The frame the font gives for these rows, drawn whole."""
    want = blank()
    for y, r in enumerate(rows):
        want.text(r, 0, y * 8, 1)
    return want


def assert_same(got, want):
    for y in range(64):
        for x in range(128):
            assert got.pixel(x, y) == want.pixel(x, y), (x, y)


def test_text_rows_render_with_the_oled_font():
    panel = Panel()
    screens.draw(panel, ROWS)
    assert_same(panel.frame, written(ROWS))


def test_a_suit_is_drawn_as_its_glyph():
    panel = Panel()
    screens.draw(panel, ["", "", "1" + HEART_GLYPH, "", "", "", "", ""])  # 1 heart, row 2
    got = panel.frame
    for dy in range(8):
        for dx in range(8):
            assert got.pixel(8 + dx, 16 + dy) == (1 if HEART[dy][dx] == "X" else 0), (dx, dy)
    want = blank()
    want.text("1", 0, 16, 1)
    for dy in range(8):
        for dx in range(8):
            assert got.pixel(dx, 16 + dy) == want.pixel(dx, 16 + dy)


def test_draw_clears_the_previous_frame():
    panel = Panel()
    panel.frame.fill(1)
    panel.fill(1)
    screens.draw(panel, [""] * 8)
    assert panel.sent == [0, 1, 2, 3, 4, 5, 6, 7]
    for y in range(64):
        for x in range(128):
            assert panel.frame.pixel(x, y) == 0


def test_a_row_changed_alone_redraws_only_its_page():
    panel = Panel()
    screens.draw(panel, ROWS)
    panel.sent = []
    after = list(ROWS)
    after[2] = "    1" + HEART_GLYPH  # 1 heart under N: a glyph, on page 2
    after[6] = "E to call"
    screens.draw(panel, after, ROWS)
    assert panel.sent == [2, 6]
    want = written(["    1" if r is after[2] else r for r in after])
    for dy in range(8):
        for dx in range(8):
            want.pixel(40 + dx, 16 + dy, 1 if HEART[dy][dx] == "X" else 0)
    assert_same(panel.frame, want)  # the other rows stay as the first frame drew them
    screens.draw(panel, after, after)
    assert panel.sent == [2, 6]  # nothing changed: nothing sent
