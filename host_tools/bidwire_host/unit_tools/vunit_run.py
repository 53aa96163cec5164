"""`make vunit`: one virtual unit on this terminal's stdin and stdout, on the build a unit runs (the 32-bit port with
the firmware frozen in; the 64-bit port with .mpy files in build/unit, after a notice, where it cannot be built).

    python -m bidwire_host.unit_tools.vunit_run [--heap 48K] [--resume] CONFIG
"""
import os
from pathlib import Path

import click

from bidwire_host.unit_tools import vunit_config
from bidwire_host.unit_tools.simulator import UnitError, unit_runtime

ROOT = Path(__file__).resolve().parents[3]


@click.command()
@click.option("--heap", help="The unit's MicroPython heap (default: 48K frozen, 160K on the 64-bit port).")
@click.option("--resume", is_flag=True, help="Carry on from the unit's saved state instead of starting fresh.")
@click.argument("config", type=click.Path(dir_okay=False))
def main(heap, resume, config):
    """Run the virtual unit with CONFIG (the format `bidwire provision` writes; written for a stand-alone unit if
    it does not exist). A config with no state_dir keeps its state under build/vunit/UNIT/."""
    p = Path(config)
    if not p.exists():
        vunit_config.write(p)
    p = vunit_config.with_state(p, ROOT / "build")
    if not resume:
        vunit_config.fresh(p)
    runtime = unit_runtime(ROOT, ROOT / "build" / "unit", heap)
    try:
        argv, env, cwd = runtime.command(p)
    except UnitError as e:
        raise click.ClickException(str(e)) from None
    os.chdir(cwd)
    os.execve(argv[0], argv, env)  # the unit takes this process: its stdin, stdout and exit status


if __name__ == "__main__":
    main()
