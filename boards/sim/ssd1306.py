"""A stand-in for micropython-lib's ssd1306 driver, with what bidwire.unit.oled takes from it: the command
constants, a FrameBuffer subclass whose init_display turns the panel on and clears it (fill(0), show()), and
write_cmd / write_data on the I2C bus, using the fields the driver's __init__ sets. The panel is modelled behind
them: the column and page window commands and the data bytes land in `gddram` (8 pages of 128 bytes) as the
SSD1306 puts them in horizontal addressing mode, so a test reads what the panel shows."""
import framebuf

SET_CONTRAST = 0x81
SET_DISP = 0xAE
SET_COL_ADDR = 0x21
SET_PAGE_ADDR = 0x22


class SSD1306(framebuf.FrameBuffer):
    def __init__(self, width, height, external_vcc):
        self.width = width
        self.height = height
        self.external_vcc = external_vcc
        self.pages = height // 8
        self.buffer = bytearray(self.pages * width)
        super().__init__(self.buffer, width, height, framebuf.MONO_VLSB)
        self.init_display()

    def init_display(self):
        self.gddram = bytearray(1024)  # the panel's memory, not the unit's: only the model keeps it here
        self.window = [0, 127, 0, 7]  # first and last column, first and last page
        self.at = 0  # the next byte of gddram written
        self.on = False
        self._cmd = []  # a command waiting for its arguments
        self.write_cmd(SET_DISP | 1)  # display on: raises OSError when nothing answers at addr
        self.fill(0)
        self.show()

    def poweroff(self):
        self.write_cmd(SET_DISP)

    def poweron(self):
        self.write_cmd(SET_DISP | 1)

    def contrast(self, contrast):
        self.write_cmd(SET_CONTRAST)
        self.write_cmd(contrast)

    def show(self):
        for c in (SET_COL_ADDR, 0, 127, SET_PAGE_ADDR, 0, 7):
            self.write_cmd(c)
        self.write_data(self.buffer)

    def _panel_cmd(self, cmd):
        pending = self._cmd
        pending.append(cmd)
        if pending[0] in (SET_COL_ADDR, SET_PAGE_ADDR):
            if len(pending) < 3:
                return
            i = 0 if pending[0] == SET_COL_ADDR else 2
            self.window[i:i + 2] = pending[1:]
            self.at = self.window[2] * 128 + self.window[0]
        elif pending[0] in (SET_DISP, SET_DISP | 1):
            self.on = pending[0] & 1 == 1
        elif pending[0] == SET_CONTRAST and len(pending) < 2:
            return
        pending.clear()

    def _panel_data(self, buf):
        c0, c1, p0, p1 = self.window
        for b in bytes(buf):
            self.gddram[self.at] = b
            col, page = self.at % 128 + 1, self.at // 128
            if col > c1:
                col, page = c0, page + 1 if page < p1 else p0
            self.at = page * 128 + col


class SSD1306_I2C(SSD1306):
    def __init__(self, width, height, i2c, addr=0x3C, external_vcc=False):
        self.i2c = i2c
        self.addr = addr
        self.temp = bytearray(2)
        self.write_list = [b"\x40", None]
        super().__init__(width, height, external_vcc)

    def write_cmd(self, cmd):
        self.temp[0] = 0x80  # Co=1, D/C#=0: one command byte
        self.temp[1] = cmd
        self.i2c.writeto(self.addr, self.temp)
        self._panel_cmd(cmd)

    def write_data(self, buf):
        self.write_list[1] = buf
        self.i2c.writevto(self.addr, self.write_list)
        self._panel_data(buf)
