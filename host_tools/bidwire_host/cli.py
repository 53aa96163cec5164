"""The `bidwire` command line."""
import sys

import click

from bidwire_host import lines


@click.group()
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


def _write(text):
    sys.stdout.write(text)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
