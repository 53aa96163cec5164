"""The ESP32 board modules built on the simulated hardware of boards/sim: every key of every seat comes out of the
scanner as its event, the pins avoid the ones an ESP32 cannot spare, and the HAL is complete.

MicroPython only (tests/conftest.py leaves it to tests/mp_suite.py): the boards and the fake display need
framebuf. (test_board.py is about bridge boards, the deals.) Named test_unit_* so
tests/mp_suite.py gives it the unit heap.
"""
import simhw  # the board modules first, while the heap is in one piece

machine = simhw.enter()
import boards.esp32_devkitc  # noqa: E402
import boards.esp32_s3  # noqa: E402
import network  # noqa: E402 - the fake, as boards/sim is on the path
from mpasyncio import asyncio  # noqa: E402

from bidwire.unit.keys import K_ALERT, K_NT, K_TD, K_UNDO, K_XX, KEYS_PER_SEAT, KeyQueue, key_code  # noqa: E402

CONFIG = {"unit": "T01", "state_dir": "/data", "wifi": None}
# GPIOs each chip cannot spare: docs/hardware.md, "Avoided:" under each board.
FORBIDDEN = {
    "esp32_devkitc": {0, 2, 5, 12, 15} | set(range(6, 12)) | set(range(34, 40)) | {1, 3, 14, 16, 17},
    "esp32_s3": {0, 3, 45, 46, 19, 20, 43, 44, 38, 48} | set(range(26, 38)),
}


BOARDS = {"esp32_devkitc": boards.esp32_devkitc, "esp32_s3": boards.esp32_s3}


def build(name):
    machine.used.clear()
    return BOARDS[name].build(CONFIG)


def wired_to(seat, key):
    """docs/hardware.md's key table: (expander address, pin 0-15 with GPB0 = 8)."""
    if key < 14:
        return 0x20 + seat, key if key < 7 else key + 1
    return 0x24 + seat // 2, 8 * (seat % 2) + key - 14


def press(seat, key, hal, down=True):
    machine.press(*wired_to(seat, key), down=down)
    hal.keys.scan_once()
    hal.keys.scan_once()


def test_every_key_of_every_seat_comes_out_as_its_event():
    for name in FORBIDDEN:
        hal = build(name)
        queue = KeyQueue(4)
        hal.keys.queue = queue
        for seat in range(4):
            for key in range(KEYS_PER_SEAT):
                press(seat, key, hal)
                press(seat, key, hal, down=False)
                got = [queue.get() for _ in range(len(queue))]
                assert got == [key_code(seat, key)], (name, seat, key, got)


def test_a_few_keys_by_their_wiring_table_rows():
    hal = build("esp32_devkitc")
    queue = KeyQueue()
    hal.keys.queue = queue
    for addr, pin in ((0x20, 0), (0x21, 12), (0x24, 1), (0x24, 11), (0x25, 10), (0x25, 3)):
        machine.press(addr, pin)
    hal.keys.scan_once()
    hal.keys.scan_once()
    got = [queue.get() for _ in range(len(queue))]
    assert got == [key_code(0, 0), key_code(1, K_NT), key_code(0, K_ALERT), key_code(1, K_TD), key_code(2, K_TD),
                   key_code(3, K_UNDO)]  # in input order
    assert wired_to(2, K_XX) == (0x25, 0)


def test_the_int_line_wakes_the_scanner_task():
    async def main():
        hal = build("esp32_s3")
        hal.keys.poll_ms = 1
        queue = KeyQueue()
        hal.keys.start(queue)
        await asyncio.sleep_ms(10)
        quiet = machine.devices[0x20].reads
        await asyncio.sleep_ms(20)
        polled = machine.devices[0x20].reads - quiet  # nothing pressed: the task waits for the INT line
        machine.press(0x23, 5)  # W's 6: the expander's INT line falls, the task sees it and scans
        code = await asyncio.wait_for(queue.wait(), 2)
        hal.keys.deinit()
        return polled, code

    polled, code = asyncio.run(main())
    assert polled == 0 and code == key_code(3, 5)


def test_pins_avoid_strapping_flash_input_only_usb_and_console_pins_and_are_used_once():
    for name, forbidden in FORBIDDEN.items():
        build(name)
        used = machine.used
        assert not forbidden & set(used), (name, sorted(forbidden & set(used)))
        assert len(set(used)) == len(used), (name, used)


def test_the_hal_is_complete():
    for name in FORBIDDEN:
        hal = build(name)
        assert hal.name == name and hal.storage == "/data"
        assert hal.display.width == 128 and hal.display.height == 64  # the panel's; the display is one page
        assert hal.display.on and not any(hal.display.gddram)  # initialised: on, blank
        assert hal.clock.time() > 1_600_000_000 and isinstance(hal.clock.ticks_ms(), int)
        machine.ADC.microvolts = 1_950_000  # 3.90 V at the cell
        assert hal.power.battery() == 66
        machine.ADC.microvolts = 2_200_000  # charging: above full
        assert hal.power.battery() == 100
        hal.leds.turn(2)
        lit = [pin.value() for pin in hal.leds._pins]
        assert lit == [0, 0, 1, 0], lit
        assert not hal.network.connected() and hal.network.rssi() is None  # no Wi-Fi configured
        hal.network.start()
        hal.network.deinit()


def test_a_row_drawn_on_the_display_goes_to_its_page_of_the_panel():
    import framebuf

    display = build("esp32_devkitc").display
    display.fill(1)
    display.page(7)
    display.fill(0)
    display.text("1NT", 0, 0, 1)
    display.page(3)
    want = framebuf.FrameBuffer(bytearray(1024), 128, 64, framebuf.MONO_VLSB)
    want.fill_rect(0, 56, 128, 8, 1)
    want.text("1NT", 0, 24, 1)
    got = framebuf.FrameBuffer(display.gddram, 128, 64, framebuf.MONO_VLSB)  # what the panel shows
    for y in range(64):
        for x in range(128):
            assert got.pixel(x, y) == want.pixel(x, y), (x, y)


def test_the_wifi_in_the_config_reaches_the_supervisor():
    async def main():
        network.access_points["club"] = "secret"
        CONFIG["wifi"] = {"ssid": "club", "password": "secret"}
        try:
            hal = build("esp32_devkitc")
        finally:
            CONFIG["wifi"] = None
        net = hal.network
        net.poll_ms = net.check_ms = 1
        net.stable_ms = 5
        net.start()
        for _ in range(200):
            if net.connected():
                break
            await asyncio.sleep_ms(1)
        up, rssi = net.connected(), net.rssi()
        net.deinit()
        del network.access_points["club"]
        return up, rssi

    assert asyncio.run(main()) == (True, network.rssi_dbm)
