"""The click group behind the `dyntools` command.

Each command lives in a module of this package and registers itself on `main` when that
module is imported. `COMMANDS` says which module holds which command, so a command line
imports only its own command's module (`dyntools call` never loads the review, MCP or sandbox
commands); `--help` and a mistyped command import them all. A test holds the table to what
the modules register.
"""

from __future__ import annotations

import importlib
from typing import Any

import click

from dyntools import __version__

# command name -> the module of dyntools.cli that defines it
COMMANDS: dict[str, str] = {
    "check": "check_cmd",
    "ensure": "ensure_cmd",
    "call": "call_cmd",
    "record": "record_cmd",
    "serve-mcp": "mcp_cmd",
    "list": "registry_cmd",
    "search": "registry_cmd",
    "show": "registry_cmd",
    "diff": "registry_cmd",
    "review": "registry_cmd",
    "rollback": "registry_cmd",
    "watch": "registry_cmd",
    "init": "review_cmd",
    "keygen": "review_cmd",
    "pending": "review_cmd",
    "approve": "review_cmd",
    "reject": "review_cmd",
    "activate": "review_cmd",
    "retire": "review_cmd",
    "sign-state": "review_cmd",
    "alias": "review_cmd",
    "unalias": "review_cmd",
    "exec": "sandbox_cmd",
    "doctor": "sandbox_cmd",
    "ui": "ui_cmd",
    "health": "health_cmd",
    "repair": "health_cmd",
    "run": "run_cmd",
    "resume": "run_cmd",
    "promote": "promote_cmd",
}


# Commands that never load a model SDK: no need to silence its warning (nor to import the
# generators' model table, which `dyntools call` and `check` would otherwise pay for).
_NO_MODEL_SDK = frozenset({"call", "check"})


def load_commands(names: list[str] | None = None) -> None:
    """Import the modules of `names` (default: every command), registering them on `main`."""
    for module in sorted({COMMANDS[n] for n in (names if names is not None else COMMANDS)}):
        importlib.import_module(f"dyntools.cli.{module}")


class _Group(click.Group):
    """The command group, plus one rule for every command: SIGINT exits 130 and SIGTERM 143,
    with one line on stderr and an `interrupted` audit event, never a traceback (click's
    own handling would print "Aborted!" and exit 1, the gate-rejection code). Commands are
    imported when they are looked up (`COMMANDS`)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in COMMANDS and cmd_name not in self.commands:
            load_commands([cmd_name])
        command = super().get_command(ctx, cmd_name)
        if command is not None and not any(p.name == "log_format" for p in command.params):
            # The one option every command takes, without a parameter in every signature.
            command.params.append(log_format_option())
        return command

    def main(self, *args: Any, **kwargs: Any) -> Any:
        from dyntools.base import interrupts

        interrupts.install()  # as early as the console script allows
        try:
            return super().main(*args, **kwargs)
        finally:
            interrupts.finishing()

    def invoke(self, ctx: click.Context) -> Any:
        from dyntools.base import interrupts

        interrupts.install()
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit,
                click.exceptions.Abort, BrokenPipeError):
            raise  # click's own: a usage error, an exit, a reader that went away
        except Exception as exc:  # the last resort: no traceback for a person
            ctx.exit(_report_unexpected(exc))
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


EXIT_INTERNAL = 70  # EX_SOFTWARE: a bug in dyntools, not the caller's input
TRACEBACK_ENV = "DYNTOOLS_TRACEBACK"


def _report_unexpected(exc: Exception) -> int:
    """An error no command handled: one line on stderr, never a traceback (it goes to the
    audit log, and DYNTOOLS_TRACEBACK=1 shows it). A DyntoolsError that got this far exits
    with its usual code; anything else is a bug in dyntools (70)."""
    import os
    import sys

    from dyntools.base.terminal import terminal_safe
    from dyntools.errors import DyntoolsError

    if os.environ.get(TRACEBACK_ENV) == "1":
        raise exc
    if isinstance(exc, DyntoolsError):
        from dyntools.cli.common import exit_code_for

        sys.stderr.write(f"error: {exc.station}/{exc.reason}: {terminal_safe(exc.message)}\n")
        return exit_code_for(exc)
    try:
        from dyntools.base.log import get_logger

        get_logger("cli").info("cli.internal_error", error=repr(exc), exc_info=exc)
    except Exception:  # reporting a bug must not raise another
        pass
    sys.stderr.write(f"dyntools: internal error (a bug in dyntools, not in what you gave it): "
                     f"{type(exc).__name__}: {terminal_safe(str(exc))[:300]}; the traceback is "
                     f"in the audit log, or run again with {TRACEBACK_ENV}=1\n")
    return EXIT_INTERNAL


def _report_interrupt(ctx: click.Context, code: int) -> None:
    """What the CLI says of an interrupted command (exit `code`): one line on stderr and an
    `interrupted` event, never a traceback."""
    import contextlib
    import sys

    from dyntools.base.interrupts import SIGNAL_NAMES

    command = ctx.invoked_subcommand or (ctx.protected_args[:1] or ["?"])[0]
    name = SIGNAL_NAMES.get(code - 128, f"signal {code - 128}")
    with contextlib.suppress(Exception):
        from dyntools.base.log import get_logger

        get_logger("cli").info("interrupted", command=command, exit_code=code, signal=name)
    with contextlib.suppress(Exception):
        sys.stderr.write(f"dyntools: interrupted ({name})\n")
        sys.stderr.flush()


LOG_FORMAT_HELP = (
    "How log events look on stderr: text (a readable line each) or json (one JSON object a "
    "line). Default: DYNTOOLS_LOG_FORMAT, else text on a terminal and json otherwise. The "
    "audit log is JSON either way.")


def _chosen_log_format(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    if value is not None:
        from dyntools.base.log import set_log_format

        set_log_format(value)


def log_format_option() -> click.Option:
    """`--log-format text|json` (DYNTOOLS_LOG_FORMAT): every command takes it, and so does
    the group (`dyntools --log-format json list`); click checks the variable's value too."""
    return click.Option(["--log-format"], type=click.Choice(["text", "json"]), default=None,
                        envvar="DYNTOOLS_LOG_FORMAT", expose_value=False, is_eager=True,
                        callback=_chosen_log_format, help=LOG_FORMAT_HELP)


def _with_log_format(command: _Group) -> _Group:
    command.params.append(log_format_option())
    return command


@_with_log_format
@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="dyntools")
def main() -> None:
    """Grow the tools an agent is missing, behind a static gate and a sandbox."""
    if click.get_current_context().invoked_subcommand in _NO_MODEL_SDK:
        return
    import warnings

    from dyntools.generators.models import SDK_DEPRECATION_MESSAGE

    # The model SDKs' multi-line DeprecationWarning: the CLI says the same in one line
    # (`echo_model_notice`), so this process does not print it again as a warning dump.
    warnings.filterwarnings("ignore", message=SDK_DEPRECATION_MESSAGE,
                            category=DeprecationWarning)
