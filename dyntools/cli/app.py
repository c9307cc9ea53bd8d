"""The command line: the only part of dyntools that prints or chooses exit codes.

Each command group lives in its own module and registers itself on `main`; importing them
here keeps `dyntools --help` complete.
"""

from __future__ import annotations

from typing import Any

import click

from dyntools import __version__


class _Group(click.Group):
    """The command group, plus one rule for every command: SIGINT exits 130 and SIGTERM 143,
    with one line on stderr and an `interrupted` audit event, never a traceback (click's
    own handling would print "Aborted!" and exit 1, the gate-rejection code)."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        from dyntools import interrupts

        interrupts.install()  # as early as the console script allows
        return super().main(*args, **kwargs)

    def invoke(self, ctx: click.Context) -> Any:
        from dyntools import interrupts

        interrupts.install()
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as exc:
            code = interrupts.exit_code_for(exc)
        except BaseExceptionGroup as group:  # an async server's task group wraps it
            found = group.subgroup(lambda e: isinstance(e, KeyboardInterrupt))
            if found is None:
                raise
            leaf: BaseException = found
            while isinstance(leaf, BaseExceptionGroup):
                leaf = leaf.exceptions[0]
            assert isinstance(leaf, KeyboardInterrupt)
            code = interrupts.exit_code_for(leaf)
        _report_interrupt(ctx, code)
        ctx.exit(code)


def _report_interrupt(ctx: click.Context, code: int) -> None:
    import contextlib
    import sys

    with contextlib.suppress(Exception):
        from dyntools.log import get_logger

        command = ctx.invoked_subcommand or (ctx.protected_args[:1] or ["?"])[0]
        get_logger("cli").info("interrupted", command=command, exit_code=code,
                               signal="SIGINT" if code == 130 else "SIGTERM")
    with contextlib.suppress(Exception):
        sys.stderr.write(f"dyntools: interrupted ({'SIGINT' if code == 130 else 'SIGTERM'})\n")
        sys.stderr.flush()


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="dyntools")
def main() -> None:
    """Grow the tools an agent is missing, behind a static gate and a sandbox."""
    import warnings

    from dyntools.generators.models import SDK_DEPRECATION_MESSAGE

    # The model SDKs' multi-line DeprecationWarning: the CLI says the same in one line
    # (`echo_model_notice`), so this process does not print it again as a warning dump.
    warnings.filterwarnings("ignore", message=SDK_DEPRECATION_MESSAGE,
                            category=DeprecationWarning)


# Command modules register themselves on `main` when imported (so after it is defined).
from dyntools.cli import (  # noqa: E402
    check_cmd,  # noqa: F401
    ensure_cmd,  # noqa: F401
    mcp_cmd,  # noqa: F401
    registry_cmd,  # noqa: F401
    review_cmd,  # noqa: F401
    sandbox_cmd,  # noqa: F401
)
