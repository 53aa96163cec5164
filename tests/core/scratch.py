"""Scratch directories and file surgery for the journal tests, on CPython and MicroPython (no tempfile there)."""
import os


def scratch(name):
    """A fresh, empty directory path build/tmp-journal-<name> (the journal creates it)."""
    path = "build/tmp-journal-" + name
    remove_tree(path)
    return path


def remove_tree(path):
    try:
        names = os.listdir(path)
    except OSError:
        return
    for name in names:
        os.remove(path + "/" + name)
    os.rmdir(path)


def file_size(path):
    return os.stat(path)[6]


def cut(path, size):
    """Keep the first `size` bytes of the file: what a power cut mid-write leaves."""
    with open(path, "rb") as f:
        data = f.read(size)
    with open(path, "wb") as f:
        f.write(data)
