"""A local PostgreSQL cluster: `initdb` into a folder, `pg_ctl` on a Unix socket in it, no TCP port.

The tests, `make hub` and `make demo-sim` use it when no server is named by BIDWIRE_HUB_DSN. It runs Debian's
server binaries (`apt-get install postgresql`); as root they run as the `postgres` user, who owns the folder. If
that user cannot reach the folder (a root-only home), the cluster goes into /tmp/bidwire-pg-<hash of the folder>.
"""
import glob
import hashlib
import os
import pwd
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path


class LocalPgError(RuntimeError):
    pass


def _reachable(folder, uid, gid):
    """Whether user uid (group gid) may pass through `folder` and every folder above it."""
    for p in [folder, *folder.parents]:
        try:
            st = os.stat(p)
        except OSError:
            continue  # made later, by us, for that user
        bit = stat.S_IXUSR if st.st_uid == uid else stat.S_IXGRP if st.st_gid == gid else stat.S_IXOTH
        if not st.st_mode & bit:
            return False
    return True


def bindir():
    """The folder of the newest installed PostgreSQL server binaries (initdb, pg_ctl)."""
    found = shutil.which("pg_ctl")
    if found and Path(found).with_name("initdb").exists():
        return Path(os.path.realpath(found)).parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(Path(p).parts[-3]))
    if not versions:
        raise LocalPgError("no PostgreSQL server binaries: apt-get install postgresql (make postgresql)")
    return Path(versions[-1]).parent


class Cluster:
    """A cluster under `folder` (made if new), started on a socket there; `dsn` names its `bidwire` database."""

    def __init__(self, folder, database="bidwire", fresh=False):
        """`fresh`: remove what an earlier cluster left there first (the demo's and the tests' throwaway ones)."""
        self.folder = Path(folder).resolve()
        self.database = database
        self.fresh = fresh
        self.bin = bindir()
        self._as = None
        if os.geteuid() == 0:  # the server refuses to run as root
            try:
                user = pwd.getpwnam("postgres")
            except KeyError:
                raise LocalPgError("running as root needs the postgres user (apt-get install postgresql)") from None
            self._as = (user.pw_uid, user.pw_gid)
        home = self.folder
        if self._as and not _reachable(self.folder.parent, *self._as):
            # the server's user cannot reach the folder (a root-only home or temp folder): the cluster lives in
            # a folder of its own under the system's temp folder, named after this one
            tag = hashlib.sha256(str(self.folder).encode()).hexdigest()[:12]
            home = Path(tempfile.gettempdir()) / f"bidwire-pg-{tag}"
        self.home = home
        self.data = home / "pgdata"
        self.socket = home / "socket"

    @property
    def dsn(self):
        return f"host={self.socket} dbname={self.database} user=postgres"

    def _run(self, *args, check=True):
        def demote():
            if self._as:
                os.setgid(self._as[1])
                os.setuid(self._as[0])

        cmd = [str(self.bin / args[0]), *args[1:]]
        r = subprocess.run(cmd, preexec_fn=demote, capture_output=True, text=True, check=False)  # noqa: PLW1509
        if check and r.returncode:
            raise LocalPgError(f"{args[0]} failed ({r.returncode}): {(r.stderr or r.stdout).strip()[-800:]}")
        return r

    def _own(self, path):
        path.mkdir(parents=True, exist_ok=True)
        if self._as:
            os.chown(path, *self._as)

    def start(self):
        if self.fresh:
            self.stop("immediate")
            shutil.rmtree(self.home / "pgdata", ignore_errors=True)
            self.fresh = False
        self._own(self.folder)
        self._own(self.home)
        self._own(self.socket)
        if not (self.data / "PG_VERSION").exists():
            self._own(self.data)
            self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                      "--locale=C.UTF-8")
        opts = f"-c listen_addresses='' -k {self.socket} -c fsync=on -c max_connections=200"
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.home / "server.log"), "-o", opts, "-w",
                  "-t", "60", "start")
        r = self._run("psql", "-h", str(self.socket), "-U", "postgres", "-d", "postgres", "-tAc",
                      f"SELECT 1 FROM pg_database WHERE datname = '{self.database}'", check=False)
        if r.returncode == 0 and r.stdout.strip() != "1":
            self._run("createdb", "-h", str(self.socket), "-U", "postgres", self.database)
        return self

    def stop(self, mode="fast"):
        if (self.data / "postmaster.pid").exists():
            self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop", check=False)

    def remove(self):
        """Stop the cluster and remove its files (a throwaway one)."""
        self.stop("immediate")
        shutil.rmtree(self.home, ignore_errors=True)

    def restart(self):
        self.stop()
        return self.start()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
