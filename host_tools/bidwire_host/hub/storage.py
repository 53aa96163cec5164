"""The hub's SQL: each change of state is one function here, in one transaction, with its audit row.

Every function takes a psycopg connection from the worker's pool; the caller's `with pool.connection()` commits
on success and rolls back on an exception, so a refused upload stores nothing.
"""
import json

from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from bidwire_host import signing
from bidwire_host.utc import now


class Refused(Exception):
    """A request the hub turns down, with the HTTP status and the reason the reply gives."""

    def __init__(self, status, reason, field=None):
        super().__init__(reason)
        self.status, self.reason, self.field = status, reason, field


def _audit(conn, sim, by, what, **detail):
    conn.execute("INSERT INTO audit (sim_id, by, what, detail) VALUES (%s, %s, %s, %s)",
                 (sim, by, what, Jsonb(detail)))


def _begin(conn, sim, setup=False):
    """Start a change of the sim: hold its setup as read (a shared lock on the sim, so that many uploads go on
    side by side while the organiser's change of the setup, `setup=True`, waits for them and they for it)."""
    fn = "pg_advisory_xact_lock" if setup else "pg_advisory_xact_lock_shared"
    conn.execute(f"SELECT {fn}(hashtextextended(%s, {_SIM_LOCK}))", (sim,))  # noqa: S608 - fixed names


_SIM_LOCK = 0x626964  # the seed of a sim's advisory lock key


def _end(conn, sim, club=None, rebuilt=()):
    """End a change of the sim: on the boards it deleted results from (`rebuilt`), mark that a worker must read
    them again whole (hub/live_field.py); count the change (what a worker's caches are keyed on: `changes`) on the
    club's row when it changed a club's results, else on the sim's. A club's change locks the club's row first,
    then its results, then the board markers in order, and never the sim's row: changes of different clubs do
    not wait on each other."""
    if rebuilt:
        conn.execute("INSERT INTO board_changes AS old (sim_id, board, rebuilt_xact) SELECT %s, b, "
                     "pg_current_xact_id() FROM unnest(%s::int[]) b ON CONFLICT (sim_id, board) "
                     "DO UPDATE SET rebuilt_xact = EXCLUDED.rebuilt_xact", (sim, sorted(set(rebuilt))))
    if club is None:
        conn.execute("UPDATE sims SET changes = changes + 1 WHERE id = %s", (sim,))
    else:
        conn.execute("UPDATE clubs SET changes = changes + 1 WHERE sim_id = %s AND club_id = %s", (sim, club))


def changes(conn, sim_id):
    """The number of changes of the sim so far: its own (the setup) and its clubs' (their results)."""
    return conn.execute("SELECT changes + (SELECT coalesce(sum(changes), 0) FROM clubs WHERE sim_id = %s) "
                        "FROM sims WHERE id = %s", (sim_id, sim_id)).fetchone()[0]


def sim(conn, sim_id):
    """The sim's row; its `changes` count its clubs' changes too (`changes`), and play has `started` once a club
    has changed a result (the setup is fixed from then on)."""
    cur = conn.cursor(row_factory=dict_row)
    row = cur.execute("SELECT *, (SELECT coalesce(sum(changes), 0) FROM clubs WHERE sim_id = %s) AS club_changes "
                      "FROM sims WHERE id = %s", (sim_id, sim_id)).fetchone()
    if row is None:
        raise Refused(404, f"no sim {sim_id}", "sim")
    club_changes = row.pop("club_changes")
    row["changes"] += club_changes
    row["started"] = row["started"] or club_changes > 0  # the column: set by hubs before migration 0008
    return row


def released(sim):
    """Whether the sim's release time has come, by the hub's clock (a club's clock is never read)."""
    return now() >= sim["release_at"]


def sims(conn):
    return conn.cursor(row_factory=dict_row).execute("SELECT id, name, release_at FROM sims ORDER BY id").fetchall()


def create_sim(conn, setup, hands, worked=None):
    """A new sim (`hands`: {board: PBN deal text} from the organiser's hand set; `worked`: {board: double-dummy
    table and par}, event/analysis.tables)."""
    missing = [b for b in setup.boards if hands and b not in hands]
    if missing:
        raise Refused(422, f"hands_pbn: no deal for board {missing[0]}", "hands_pbn")
    points = setup.masterpoints.model_dump(exclude_none=True) if setup.masterpoints else None
    cur = conn.execute("INSERT INTO sims (id, name, release_at, scoring, winners, boards, hands, analysis, "
                       "correction_minutes, masterpoints, sessions) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, "
                       "%s) ON CONFLICT (id) DO NOTHING",
                       (setup.id, setup.name, setup.release_at, setup.scoring, setup.winners, setup.boards,
                        Jsonb({str(b): hands[b] for b in setup.boards if b in hands}),
                        Jsonb({str(b): v for b, v in (worked or {}).items()}), setup.correction_minutes,
                        None if points is None else Jsonb(points), setup.sessions))
    if cur.rowcount == 0:
        raise Refused(409, f"a sim {setup.id} exists already", "id")
    _audit(conn, setup.id, "organiser", "sim created", name=setup.name, release_at=setup.release_at.isoformat(),
           scoring=setup.scoring, winners=setup.winners, boards=setup.boards, masterpoints=points,
           sessions=setup.sessions)


def change_sim(conn, sim_id, change):
    _begin(conn, sim_id, setup=True)
    row = sim(conn, sim_id)
    values = {k: v for k, v in change.model_dump().items() if v is not None}
    fixed = sorted(set(values) - {"release_at", "name", "correction_minutes"})
    if row["started"] and fixed:  # the release time stays the organiser's to move: earlier, or later
        raise Refused(409, f"{fixed[0]}: play has started, the scoring is fixed", fixed[0])
    if not values:
        return
    conn.execute(f"UPDATE sims SET {', '.join(f'{k} = %s' for k in values)} WHERE id = %s",  # noqa: S608 - names are the model's
                 (*values.values(), sim_id))
    _audit(conn, sim_id, "organiser", "setup changed",
           **{k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in values.items()})
    _end(conn, sim_id)


def register_club(conn, sim_id, club):
    """The club's id and a new secret (hex), shown once to the organiser to give to the club."""
    sim(conn, sim_id)
    secret = signing.new_secret()
    cur = conn.execute("INSERT INTO clubs (sim_id, club_id, name, secret) VALUES (%s, %s, %s, %s) "
                       "ON CONFLICT DO NOTHING", (sim_id, club.id, club.name, secret))
    if cur.rowcount == 0:
        raise Refused(409, f"club {club.id} is registered already", "id")
    _audit(conn, sim_id, "organiser", "club registered", club=club.id, name=club.name)
    return secret.hex()


def rotate_secret(conn, sim_id, club_id):
    """A new secret for the club (the old one opens nothing from now on), shown once; audited."""
    sim(conn, sim_id)
    secret = signing.new_secret()
    cur = conn.execute("UPDATE clubs SET secret = %s WHERE sim_id = %s AND club_id = %s", (secret, sim_id, club_id))
    if cur.rowcount == 0:
        raise Refused(404, f"club: no club {club_id} in sim {sim_id}", "club")
    _audit(conn, sim_id, "organiser", "club secret changed", club=club_id)
    return secret.hex()


def remove_club(conn, sim_id, club_id):
    """The club and its results out of the sim (registered by mistake, or withdrawn); audited with how many
    results went. What the club's changes counted moves to the sim's own count, which only grows."""
    _begin(conn, sim_id)
    row = conn.execute("SELECT changes FROM clubs WHERE sim_id = %s AND club_id = %s FOR UPDATE",
                       (sim_id, club_id)).fetchone()
    if row is None:
        raise Refused(404, f"club: no club {club_id} in sim {sim_id}", "club")
    boards = [b for (b,) in conn.execute("DELETE FROM results WHERE sim_id = %s AND club_id = %s RETURNING board",
                                         (sim_id, club_id)).fetchall()]
    conn.execute("DELETE FROM clubs WHERE sim_id = %s AND club_id = %s", (sim_id, club_id))
    conn.execute("UPDATE sims SET changes = changes + %s WHERE id = %s", (row[0], sim_id))
    _audit(conn, sim_id, "organiser", "club removed", club=club_id, results=len(boards))
    _end(conn, sim_id, rebuilt=boards)
    return len(boards)


def club_secret(conn, sim_id, club_id):
    row = conn.execute("SELECT secret FROM clubs WHERE sim_id = %s AND club_id = %s", (sim_id, club_id)).fetchone()
    return None if row is None else bytes(row[0])


def session_of(s, given, field="session"):
    """The session a club's upload (or the organiser's decision) names, checked against the sim's: '' in a sim
    of one session, which names none; in a sim of several, one of them, named."""
    sessions = s["sessions"]
    if not sessions:
        if given:
            raise Refused(422, f"{field}: sim {s['id']} is played in one session: name none", field)
        return ""
    if given is None:
        raise Refused(422, f"{field}: sim {s['id']} is played in sessions {', '.join(sessions)}: name the one "
                      "these results are from", field)
    if given not in sessions:
        raise Refused(422, f"{field}: {given} is not a session of sim {s['id']} ({', '.join(sessions)})", field)
    return given


def _taken(conn, sim_id, club, session):
    """What the hub has taken of the club's uploads in the session: (last number, its body's digest, the last
    USEBIO file's digest), after locking the club's row (an upload's first lock: `_end`). None: no such club."""
    if conn.execute("SELECT 1 FROM clubs WHERE sim_id = %s AND club_id = %s FOR UPDATE",
                    (sim_id, club)).fetchone() is None:
        return None
    row = conn.execute("SELECT last_upload, last_digest, usebio_digest FROM club_sessions WHERE sim_id = %s AND "
                       "club_id = %s AND session = %s", (sim_id, club, session)).fetchone()
    return (0, None, None) if row is None else (row[0], *(None if d is None else bytes(d) for d in row[1:]))


def _took(conn, sim_id, club, session, **columns):
    """Record what was taken of the club's uploads in the session (`_taken`'s columns, by name)."""
    names = ", ".join(columns)
    sets = ", ".join(f"{k} = EXCLUDED.{k}" for k in columns)
    conn.execute(f"INSERT INTO club_sessions (sim_id, club_id, session, {names}) VALUES (%s, %s, %s, "  # noqa: S608 - fixed names
                 f"{', '.join(['%s'] * len(columns))}) ON CONFLICT (sim_id, club_id, session) DO UPDATE SET {sets}",
                 (sim_id, club, session, *columns.values()))


def store_upload(conn, upload, body_digest):
    """Store a club's verified upload, exactly once: ("stored", n) for a new one, ("again", 0) for a retry of the
    last one of its session (same number, same bytes: nothing changes). Anything else is Refused and stores
    nothing. The third figure: how many of the results are held for the organiser (first seen after the release:
    `_put`)."""
    _begin(conn, upload.sim)
    s = sim(conn, upload.sim)
    session = session_of(s, upload.session)
    taken = _taken(conn, upload.sim, upload.club, session)
    if taken is None:
        raise Refused(404, f"club: no club {upload.club} in sim {upload.sim}", "club")
    last, last_digest, _ = taken
    where = f" in session {session}" if session else ""
    if upload.upload == last and body_digest == last_digest:
        return "again", 0, 0
    if upload.upload <= last:
        raise Refused(409, f"upload {upload.upload} replayed or out of order: the hub has taken up to {last}{where}",
                      "upload")
    if _period_over(conn, upload.sim):
        raise Refused(409, "the correction period is over: only the organiser changes a result now", "upload")
    boards = set(s["boards"])
    for i, r in enumerate(upload.results):
        if r.board not in boards:
            raise Refused(422, f"results[{i}].board: board {r.board} is not in sim {upload.sim}", f"results[{i}].board")
    held = _held(_put(conn, upload.sim, upload.club, session, upload.results, upload.upload,
                      f"club {upload.club}", released(s)))
    _took(conn, upload.sim, upload.club, session, last_upload=upload.upload, last_digest=body_digest)
    _end(conn, upload.sim, upload.club)
    return "stored", len(upload.results), held


def replace_heat(conn, sim_id, club, results, file_digest, number=None, session=None):
    """A club's heat from one USEBIO file (its sections of the session whole): each result set (a changed one
    audited as a correction), and the club's results in those sections that the file no longer holds withdrawn,
    audited.
    ("again", 0, 0, 0) for the file taken last; ("stored", set, withdrawn, held) otherwise (held: first seen
    after the release, `_put`). A re-upload replaces; it
    never adds a second copy of a result. A signed heat's `number` counts with the club's uploads of the
    session: above the last one taken, or the last one again with the same file; an older one is a replay,
    refused (409)."""
    _begin(conn, sim_id)
    s = sim(conn, sim_id)
    session = session_of(s, session)
    taken = _taken(conn, sim_id, club, session)
    if taken is None:
        raise Refused(404, f"club: no club {club} in sim {sim_id}", "club")
    last, _, usebio_digest = taken
    same = usebio_digest == file_digest
    if number is not None and not (number > last or number == last and same):
        raise Refused(409, f"upload: number {number} is not above the club's last upload, {last}: a replay of "
                      "an older file is not taken (send the heat again with the next number)", "upload")
    if same:
        return "again", 0, 0, 0
    if _period_over(conn, sim_id):
        raise Refused(409, "the correction period is over: only the organiser changes a result now", "file")
    boards = set(s["boards"])
    keys = set()
    for r in results:
        if r.board not in boards:
            raise Refused(422, f"BOARD {r.board}: board {r.board} is not in sim {sim_id}", "BOARD_NUMBER")
        key = (r.section, r.board, r.ns, r.ew)
        if key in keys:
            raise Refused(422, f"BOARD {r.board}: {r.ns} v {r.ew} in section {r.section} twice", "TRAVELLER_LINE")
        keys.add(key)
    by = f"club {club} (USEBIO)"
    held = _held(_put(conn, sim_id, club, session, results, 0, by, released(s)))
    kept = conn.execute("SELECT section, board, ns, ew FROM results WHERE sim_id = %s AND club_id = %s AND "
                        "session = %s", (sim_id, club, session)).fetchall()
    sections = {r.section for r in results}  # a file holds its sections whole; others stay as they were
    gone = [k for k in kept if k[0] in sections and tuple(k) not in keys]
    for section, board, ns, ew in gone:
        conn.execute("DELETE FROM results WHERE sim_id = %s AND club_id = %s AND session = %s AND section = %s "
                     "AND board = %s AND ns = %s AND ew = %s", (sim_id, club, session, section, board, ns, ew))
        _audit(conn, sim_id, by, "result withdrawn", club=club, **_in(session), section=section, board=board, ns=ns,
               ew=ew)
    _took(conn, sim_id, club, session, usebio_digest=file_digest, last_upload=max(last, number or 0))
    _audit(conn, sim_id, by, "heat uploaded", club=club, **_in(session), results=len(results), withdrawn=len(gone),
           held=held, sha256=file_digest.hex())
    _end(conn, sim_id, club, rebuilt=[g[1] for g in gone])
    return "stored", len(results), len(gone), held


def _period_over(conn, sim_id):
    return conn.execute("SELECT now() > release_at + correction_minutes * interval '1 minute' FROM sims "
                        "WHERE id = %s", (sim_id,)).fetchone()[0]


def organiser_correct(conn, sim_id, fix):
    """The organiser sets one club's result (at any time; after the correction period, the only way), audited
    with the reason."""
    _begin(conn, sim_id)
    s = sim(conn, sim_id)
    if fix.result.board not in s["boards"]:
        raise Refused(422, f"result.board: board {fix.result.board} is not in sim {sim_id}", "result.board")
    session = session_of(s, fix.session)
    if conn.execute("SELECT 1 FROM clubs WHERE sim_id = %s AND club_id = %s FOR UPDATE",
                    (sim_id, fix.club)).fetchone() is None:  # the club's row first, as the club's uploads lock it
        raise Refused(404, f"club: no club {fix.club} in sim {sim_id}", "club")
    changed = _put(conn, sim_id, fix.club, session, [fix.result], 0, "organiser", reason=fix.reason)
    _end(conn, sim_id, fix.club)
    return changed[0][1] if changed else None


_COLUMNS = ("section", "board", "ns", "ew", "ns_names", "ew_names", "ns_ids", "ew_ids", "contract", "declarer",
            "tricks", "score_ns")
_TYPES = ("text", "int", "text", "text", "text", "text", "text", "text", "text", "text", "int", "int")


def _in(session):
    """An audit row's session: named in a sim of several, left out in a sim of one."""
    return {"session": session} if session else {}


def _put(conn, sim_id, club, session, results, upload_no, by, after_release=False, reason=None):
    """Insert or replace results (each keyed by club, session, section, board and pairs) in one statement (unnest
    of one
    array per column): a result given twice counts once, its last form. The same result again changes nothing
    and records nothing. A replacement is audited as a correction.

    A club's (no `reason`): `after_release`, a result the hub did not hold is held for the organiser (not in the
    field until admitted: `decide_held`), and audited; one it held stays as it was, held or in the field. The
    organiser's (with his `reason`): never held, a held one is in the field from then on, and every change is
    audited with the reason. [(key, version, held)] of the results changed."""
    last = {}
    for r in results:
        last[(r.section, r.board, r.ns, r.ew)] = r
    rows = list(last.values())
    arrays = [[getattr(r, c) for r in rows] for c in _COLUMNS]
    arrays.append([None if r.adjusted is None else json.dumps(r.adjusted.model_dump(exclude_none=True))
                   for r in rows])
    casts = ", ".join(f"%s::{t}[]" for t in _TYPES)
    admit = reason is not None
    cur = conn.execute(
        "INSERT INTO results AS old (sim_id, club_id, session, section, board, ns, ew, ns_names, ew_names, ns_ids, "
        "ew_ids, contract, declarer, tricks, score_ns, adjusted, upload, held) SELECT %s, %s, %s, u.section, "
        "u.board, u.ns, "
        "u.ew, u.ns_names, u.ew_names, u.ns_ids, u.ew_ids, u.contract, u.declarer, u.tricks, u.score_ns, "
        "u.adjusted::jsonb, %s, %s FROM unnest("  # noqa: S608 - fixed casts
        f"{casts}, %s::text[]) AS u(section, board, ns, ew, ns_names, ew_names, ns_ids, ew_ids, contract, declarer, "
        "tricks, score_ns, adjusted) ON CONFLICT (sim_id, club_id, session, section, board, ns, ew) DO UPDATE SET "
        "ns_names = "
        "EXCLUDED.ns_names, ew_names = EXCLUDED.ew_names, ns_ids = EXCLUDED.ns_ids, ew_ids = EXCLUDED.ew_ids, "
        "contract = EXCLUDED.contract, declarer = "
        "EXCLUDED.declarer, tricks = EXCLUDED.tricks, score_ns = EXCLUDED.score_ns, adjusted = EXCLUDED.adjusted, "
        "upload = EXCLUDED.upload, xact = pg_current_xact_id(), version = old.version + 1, updated_at = now(), "
        "held = old.held AND NOT %s WHERE (old.ns_names, old.ew_names, old.ns_ids, old.ew_ids, old.contract, "
        "old.declarer, old.tricks, old.score_ns, old.adjusted, old.held) IS DISTINCT FROM (EXCLUDED.ns_names, "
        "EXCLUDED.ew_names, EXCLUDED.ns_ids, EXCLUDED.ew_ids, EXCLUDED.contract, EXCLUDED.declarer, "
        "EXCLUDED.tricks, EXCLUDED.score_ns, EXCLUDED.adjusted, old.held AND NOT %s) "
        "RETURNING section, board, ns, ew, version, held",
        (sim_id, club, session, upload_no, after_release and not admit, *arrays, admit, admit))
    changed = [((section, board, ns, ew), version, held) for section, board, ns, ew, version, held in cur.fetchall()]
    for key, version, held in changed:
        if admit or version > 1 or held:
            what = "result corrected" if admit or version > 1 else "result held: first seen after the release"
            _audit(conn, sim_id, by, what, club=club, **_in(session), section=key[0], board=key[1], ns=key[2],
                   ew=key[3],
                   version=version, result=json.loads(last[key].model_dump_json()),
                   **({"reason": reason} if admit else {}))
    return changed


def _held(changed):
    """How many of the results `_put` changed are held for the organiser."""
    return sum(held for _, _, held in changed)


def results(conn, sim_id, boards=None):
    """The sim's results in its field (of `boards` only, when given), by board, club, section and pairs: not
    those held for the organiser (`held`)."""
    cur = conn.cursor(row_factory=dict_row)
    only = "" if boards is None else " AND board = ANY(%s)"
    return cur.execute("SELECT club_id, session, section, board, ns, ew, ns_names, ew_names, ns_ids, ew_ids, "
                       "contract, declarer, tricks, "
                       f"score_ns, adjusted, version FROM results WHERE sim_id = %s AND NOT held{only} "  # noqa: S608 - fixed text
                       "ORDER BY board, club_id, session, section, ns, ew",
                       (sim_id,) if boards is None else (sim_id, list(boards))).fetchall()


def held_results(conn, sim_id):
    """The results held for the organiser (first seen after the release), by club, section, board and pairs."""
    cur = conn.cursor(row_factory=dict_row)
    return cur.execute("SELECT club_id, session, section, board, ns, ew, ns_names, ew_names, contract, declarer, "
                       "tricks, score_ns, adjusted, version, updated_at FROM results WHERE sim_id = %s AND held "
                       "ORDER BY club_id, session, section, board, ns, ew", (sim_id,)).fetchall()


def decide_held(conn, sim_id, decision):
    """The organiser admits held results into the field, or rejects them (deleted), with the reason: a club's
    (all of them, or those named). Each one audited. How many were decided; none held is a 409."""
    _begin(conn, sim_id)
    if conn.execute("SELECT 1 FROM clubs WHERE sim_id = %s AND club_id = %s FOR UPDATE",
                    (sim_id, decision.club)).fetchone() is None:  # the club's row first, as its uploads lock it
        raise Refused(404, f"club: no club {decision.club} in sim {sim_id}", "club")
    keys = [(k.session or "", k.section, k.board, k.ns, k.ew) for k in decision.results]
    which = "" if not keys else " AND (session, section, board, ns, ew) IN (SELECT * FROM unnest(%s::text[], " \
        "%s::text[], %s::int[], %s::text[], %s::text[]))"
    args = (sim_id, decision.club, *([[k[i] for k in keys] for i in range(5)] if keys else []))
    if decision.admit:
        sql = "UPDATE results SET held = false, xact = pg_current_xact_id() WHERE sim_id = %s AND club_id = %s " \
              f"AND held{which} RETURNING session, section, board, ns, ew"
    else:
        sql = f"DELETE FROM results WHERE sim_id = %s AND club_id = %s AND held{which} RETURNING session, section, " \
              "board, ns, ew"
    done = conn.execute(sql, args).fetchall()  # noqa: S608 - fixed text
    if not done:
        raise Refused(409, f"results: club {decision.club} has no such result held", "results")
    what = "held result admitted" if decision.admit else "held result rejected"
    for session, section, board, ns, ew in done:
        _audit(conn, sim_id, "organiser", what, club=decision.club, **_in(session), section=section, board=board,
               ns=ns, ew=ew, reason=decision.reason)
    _end(conn, sim_id, decision.club)
    return len(done)


def rebuilt(conn, sim_id, since):
    """The boards some change deleted results from in a transaction at or above `since` (an xid8)."""
    return [b for (b,) in conn.execute("SELECT board FROM board_changes WHERE sim_id = %s AND rebuilt_xact >= %s",
                                       (sim_id, since)).fetchall()]


def horizon(conn):
    """The xmin of the database's snapshot now (xid8): every transaction below it has finished, so every
    result set below it is visible to any later read; those at or above it may not be yet (hub/live_field.py)."""
    return conn.execute("SELECT pg_snapshot_xmin(pg_current_snapshot())").fetchone()[0]


def results_since(conn, sim_id, since):
    """The results set (or admitted) by transactions at or above `since` (an xid8, a `horizon`), as `results`
    gives them: not those held."""
    cur = conn.cursor(row_factory=dict_row)
    return cur.execute("SELECT club_id, session, section, board, ns, ew, ns_names, ew_names, ns_ids, ew_ids, "
                       "contract, declarer, tricks, "
                       "score_ns, adjusted, version FROM results WHERE sim_id = %s AND xact >= %s AND NOT held",
                       (sim_id, since)).fetchall()


def clubs(conn, sim_id):
    """The sim's clubs (id, name, the highest upload number taken in any session, and the sessions they have sent
    from), by id. What each holds is the scored field's (Field.clubs)."""
    cur = conn.cursor(row_factory=dict_row)
    return cur.execute("SELECT c.club_id, c.name, coalesce(max(s.last_upload), 0) AS last_upload, "
                       "coalesce(array_agg(s.session ORDER BY s.session) FILTER (WHERE s.session <> ''), '{}') "
                       "AS sessions FROM clubs c LEFT JOIN club_sessions s USING (sim_id, club_id) "
                       "WHERE c.sim_id = %s GROUP BY c.club_id, c.name ORDER BY c.club_id", (sim_id,)).fetchall()


def club_names(conn, sim_id):
    return dict(conn.execute("SELECT club_id, name FROM clubs WHERE sim_id = %s", (sim_id,)).fetchall())


def audit(conn, sim_id, limit=500):
    cur = conn.cursor(row_factory=dict_row)
    return cur.execute("SELECT id, at, by, what, detail FROM audit WHERE sim_id = %s ORDER BY id DESC LIMIT %s",
                       (sim_id, limit)).fetchall()


def hub_secret(conn):
    return bytes(conn.execute("SELECT secret FROM hub_secret").fetchone()[0])


LOGIN_TRIES = 5  # wrong passwords from one address within LOGIN_WINDOW before it must wait
LOGIN_WINDOW = "10 minutes"


def login_blocked(conn, source):
    n = conn.execute("SELECT count(*) FROM login_failures WHERE source = %s AND at > now() - %s::interval",
                     (source, LOGIN_WINDOW)).fetchone()[0]
    return n >= LOGIN_TRIES


def login_failed(conn, source):
    conn.execute("INSERT INTO login_failures (source) VALUES (%s)", (source[:100],))
    # bounded: what no longer counts goes (the window is LOGIN_WINDOW; an hour kept for the log's sake)
    conn.execute("DELETE FROM login_failures WHERE at < now() - interval '1 hour'")


def session_open(conn, session_id, password_print):
    conn.execute("INSERT INTO organiser_sessions (id, password) VALUES (%s, %s)", (session_id, password_print))
    conn.execute("DELETE FROM organiser_sessions WHERE created < now() - interval '2 days'")


def session_live(conn, session_id, password_print, hours):
    """Whether the session is open: not ended, younger than `hours`, opened with the running password."""
    return conn.execute("SELECT 1 FROM organiser_sessions WHERE id = %s AND ended IS NULL AND password = %s "
                        "AND created > now() - make_interval(hours => %s)",
                        (session_id, password_print, hours)).fetchone() is not None


def session_end(conn, session_id):
    conn.execute("UPDATE organiser_sessions SET ended = now() WHERE id = %s AND ended IS NULL", (session_id,))
