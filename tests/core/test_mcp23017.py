"""The MCP23017 key-input driver against the register model in boards/sim/machine.py."""
import gc

import simhw

from bidwire.unit.mcp23017 import MCP23017

machine = simhw.enter()
ADDRESSES = (0x20, 0x21, 0x22, 0x23, 0x24, 0x25)


def bus():
    return machine.I2C(0, scl=machine.Pin(22), sda=machine.Pin(21))


def test_every_chip_gets_inputs_with_pull_ups_inverted_interrupt_on_change_and_a_shared_open_drain_int():
    MCP23017(bus(), ADDRESSES)
    for addr in ADDRESSES:
        regs = machine.devices[addr].regs
        assert regs[0x0A] == regs[0x0B] == 0x44, addr  # IOCON: MIRROR, ODR; BANK=0, SEQOP=0
        assert bytes(regs[0x00:0x0A]) == b"\x7f\x7f\x7f\x7f\x7f\x7f\x00\x00\x00\x00", addr
        assert bytes(regs[0x0C:0x0E]) == b"\x7f\x7f", addr  # GPPU
        assert bytes(regs[0x14:0x16]) == b"\x00\x00", addr  # GPA7, GPB7: outputs driven low


def test_a_grounded_pin_reads_1_in_its_chips_bytes_gpioa_then_gpiob():
    chips = MCP23017(bus(), ADDRESSES)
    buf = bytearray(chips.nbytes)
    chips.read_into(buf)
    assert chips.nbytes == 12 and buf == bytearray(12)  # nothing pressed
    machine.press(0x20, 0)  # GPA0
    machine.press(0x21, 14)  # GPB6
    machine.press(0x25, 11)  # GPB3
    chips.read_into(buf)
    assert list(buf) == [0x01, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0, 0x08]
    machine.press(0x20, 0, down=False)
    chips.read_into(buf)
    assert buf[0] == 0


def test_gpa7_and_gpb7_are_never_read_as_keys():
    chips = MCP23017(bus(), ADDRESSES)
    buf = bytearray(chips.nbytes)
    machine.press(0x22, 7)
    machine.press(0x22, 15)
    chips.read_into(buf)
    assert buf == bytearray(12)


def test_a_chip_that_does_not_answer_is_named_with_what_to_check():
    try:
        MCP23017(bus(), (0x20, 0x27))
    except OSError as e:
        assert "0x27" in str(e) and "A0-A2" in str(e)
    else:
        raise AssertionError("a missing expander went unnoticed")


def test_any_change_pulls_the_shared_int_line_once_until_the_inputs_are_read():
    chips = MCP23017(bus(), ADDRESSES)
    falls = []
    machine.Pin(23, machine.Pin.IN).irq(lambda pin: falls.append(pin.id), trigger=machine.Pin.IRQ_FALLING)
    buf = bytearray(chips.nbytes)
    machine.press(0x23, 3)
    machine.press(0x24, 9)  # the line is already low: no second fall
    assert falls == [23]
    chips.read_into(buf)  # reading GPIO clears every chip's interrupt
    machine.press(0x23, 3, down=False)  # a release is a change too
    assert falls == [23, 23]


def test_reading_allocates_nothing_after_the_first_read_into_a_buffer():
    chips = MCP23017(bus(), ADDRESSES)
    buf = bytearray(chips.nbytes)
    chips.read_into(buf)
    try:
        mem_alloc = gc.mem_alloc
    except AttributeError:  # CPython: no heap counter
        return
    read = chips.read_into
    gc.collect()
    gc.disable()
    try:
        before = mem_alloc()
        for _ in range(1000):
            read(buf)
        grown = mem_alloc() - before
    finally:
        gc.enable()
    assert grown == 0, grown
