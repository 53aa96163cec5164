"""The SSD1306 128 x 64 OLED on I2C without a frame buffer in the heap: micropython-lib's ssd1306 driver (its
commands, write_cmd / write_data, its init sequence), but drawn a page at a time. The panel keeps the frame in its
own memory (GDDRAM: 8 pages of 128 bytes, a byte a column, the top pixel in the low bit), and a text row of the
8 x 8 font is one page: the unit draws a row into this display's 128-byte buffer and page(n) sends it to page n.
"""
import framebuf
from ssd1306 import SET_COL_ADDR, SET_PAGE_ADDR, SSD1306, SSD1306_I2C


class Oled(SSD1306_I2C):
    """A 128 x 8 FrameBuffer, one page of the panel (hal.py: display). width and height are the panel's, which
    the driver's init_display reads."""

    def __init__(self, i2c, addr=0x3C):
        # What SSD1306_I2C.__init__ sets up, but with a buffer of one page where it would allocate all eight
        self.i2c = i2c
        self.addr = addr
        self.temp = bytearray(2)  # write_cmd's
        self.write_list = [b"\x40", None]  # write_data's: Co=0, D/C#=1
        self.width = 128
        self.height = 64
        self.external_vcc = False
        self.pages = 8
        self.buffer = bytearray(128)
        super(SSD1306, self).__init__(self.buffer, 128, 8, framebuf.MONO_VLSB)  # FrameBuffer's own __init__
        self.init_display()  # ends with fill(0) and show(): a blank panel

    def page(self, n):
        """Send the buffer to page n (0-7, top down): the column and page window of the driver's
        horizontal addressing, then the 128 bytes."""
        self.write_cmd(SET_COL_ADDR)
        self.write_cmd(0)
        self.write_cmd(127)
        self.write_cmd(SET_PAGE_ADDR)
        self.write_cmd(n)
        self.write_cmd(n)
        self.write_data(self.buffer)

    def show(self):
        """The buffer on every page (init_display clears the panel with fill(0) and this)."""
        for n in range(8):
            self.page(n)
