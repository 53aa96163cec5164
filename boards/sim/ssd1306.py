"""A stand-in for micropython-lib's ssd1306 driver: the same FrameBuffer subclass, its show() counted instead of
sent (the fake bus only checks that the display answers at its address)."""
import framebuf


class SSD1306_I2C(framebuf.FrameBuffer):
    def __init__(self, width, height, i2c, addr=0x3C, external_vcc=False):
        self.width = width
        self.height = height
        self.i2c = i2c
        self.addr = addr
        self.buffer = bytearray(width * height // 8)
        super().__init__(self.buffer, width, height, framebuf.MONO_VLSB)
        i2c.writeto(addr, b"\x80\xaf")  # display on: raises OSError when nothing answers at addr
        self.shows = 0
        self.on = True

    def show(self):
        self.shows += 1

    def poweroff(self):
        self.on = False

    def poweron(self):
        self.on = True

    def contrast(self, contrast):
        pass

    def invert(self, invert):
        pass

    def rotate(self, rotate):
        pass
