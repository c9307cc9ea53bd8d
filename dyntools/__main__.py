"""`python -m dyntools` is the `dyntools` command."""

import sys

from dyntools import interrupts

# Before the command modules are imported: a Ctrl-C during start-up is the same clean exit.
interrupts.install()
try:
    from dyntools.cli import main
except KeyboardInterrupt as exc:
    sys.stderr.write("dyntools: interrupted\n")
    sys.exit(interrupts.exit_code_for(exc))

if __name__ == "__main__":
    main()
