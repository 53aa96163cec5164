"""The Wi-Fi supervisor against the fake network of boards/sim: bounded attempts, a stability check, backoff,
and reconnection owned by one task. Periods are shrunk to milliseconds; the assertions leave room for timing.
"""
import simhw
from mpasyncio import asyncio

from bidwire.unit.wifi import WifiSupervisor

simhw.enter()
import network  # noqa: E402 - the fake, once boards/sim is on the path


def supervisor(ssid="club", password="secret"):
    network.access_points.clear()
    s = WifiSupervisor(network.WLAN(network.STA_IF), ssid, password)
    s.connect_timeout_ms = 10
    s.stable_ms = 5
    s.poll_ms = s.check_ms = 1
    s.backoff_ms = 2
    s.max_backoff_ms = 8
    return s


async def until(condition, ms=1000):
    for _ in range(ms):
        if condition():
            return True
        await asyncio.sleep_ms(1)
    return condition()


def test_connects_and_reports_rssi_once_the_link_has_stayed_up():
    async def main():
        s = supervisor()
        network.access_points["club"] = "secret"
        s.start()
        up = await until(s.connected)
        rssi = s.rssi()
        reconnects = s._wlan.config("reconnects")
        s.deinit()
        return up, rssi, s.failures, reconnects

    assert asyncio.run(main()) == (True, network.rssi_dbm, 0, 0)  # the driver's own reconnects are off


def test_unreachable_access_point_means_bounded_attempts_with_growing_backoff_then_connects_when_it_appears():
    async def main():
        s = supervisor()
        s.start()
        await asyncio.sleep_ms(120)
        attempts = s._wlan.connects
        down = s.connected() or s.rssi() is not None
        network.access_points["club"] = "secret"
        up = await until(s.connected)
        s.deinit()
        return attempts, s.failures, down, up

    attempts, failures, down, up = asyncio.run(main())
    # Each attempt is 10 ms, then a wait of 2, 4, 8, 8... ms: at most 8 start in 120 ms; without backoff, 11.
    assert 2 <= attempts <= 8 and failures >= attempts - 1, (attempts, failures)
    assert not down and up


def test_a_wrong_password_never_counts_as_connected():
    async def main():
        s = supervisor(password="guess")
        network.access_points["club"] = "secret"
        s.start()
        await asyncio.sleep_ms(60)
        s.deinit()
        return s.connected(), s.failures

    connected, failures = asyncio.run(main())
    assert not connected and failures >= 2


def test_a_link_that_drops_before_stable_ms_is_a_failed_attempt():
    async def main():
        s = supervisor()
        s.stable_ms = 200
        network.access_points["club"] = "secret"
        s.start()
        await until(s._wlan.isconnected)
        del network.access_points["club"]  # the access point drops us at once
        await asyncio.sleep_ms(30)
        s.deinit()
        return s.connected(), s.failures, s.drops

    connected, failures, drops = asyncio.run(main())
    assert not connected and failures >= 1 and drops == 0  # never up, so never dropped


def test_a_lost_link_is_noticed_counted_and_reconnected():
    async def main():
        s = supervisor()
        network.access_points["club"] = "secret"
        s.start()
        await until(s.connected)
        del network.access_points["club"]
        lost = await until(lambda: not s.connected())
        await asyncio.sleep_ms(10)
        drops = s.drops
        network.access_points["club"] = "secret"
        back = await until(s.connected)
        s.deinit()
        return lost, drops, back

    assert asyncio.run(main()) == (True, 1, True)


def test_deinit_stops_the_task_and_the_radio():
    async def main():
        s = supervisor()
        network.access_points["club"] = "secret"
        s.start()
        await until(s.connected)
        s.deinit()
        connects = s._wlan.connects
        await asyncio.sleep_ms(30)
        return s.connected(), s._wlan.active(), s._wlan.connects - connects

    assert asyncio.run(main()) == (False, False, 0)


def test_without_an_ssid_there_is_nothing_to_supervise():
    s = supervisor(ssid=None)
    s.start()
    assert s._task is None and not s.connected() and s.rssi() is None
    s.deinit()
