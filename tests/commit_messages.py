"""`make lint`: every commit since the house rule began (2026-12-02 13:00 UTC) has a subject of at most 72
characters and a body that says why. Older history is left as it was written."""
import subprocess
import sys

SINCE = "2026-12-02T13:00:00Z"
MAX_SUBJECT = 72


def problems(log):
    out = []
    for entry in log.split("\x1e"):
        entry = entry.strip("\n")
        if not entry:
            continue
        sha, _, message = entry.partition("\x1f")
        subject, _, body = message.partition("\n")
        if len(subject) > MAX_SUBJECT:
            out.append(f"{sha[:10]}: subject is {len(subject)} characters (at most {MAX_SUBJECT}): {subject[:60]}…")
        if not body.strip():
            out.append(f"{sha[:10]}: no body saying why: {subject}")
    return out


def main():
    try:
        log = subprocess.run(["git", "log", f"--since={SINCE}", "--no-merges", "--format=%H%x1f%B%x1e"],
                             capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"commit messages: cannot read the git history ({e}); run make lint in a git checkout")
    found = problems(log)
    for p in found:
        print(f"commit messages: {p}")
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
