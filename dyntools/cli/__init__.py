"""The command line: the only part of dyntools that prints or chooses exit codes.

Each command group lives in its own module and registers itself on `main`; importing them
here keeps `dyntools --help` complete.
"""

from __future__ import annotations

import click

from dyntools import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
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
    sandbox_cmd,  # noqa: F401
)
