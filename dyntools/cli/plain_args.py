"""The command lines `check` and `call` read without click: only the plain ones.

`read_plain` takes positionals, the command's flags and its options that take one value
(`--opt VALUE` or `--opt=VALUE`, the last one given wins, as in click), with `--` ending the
options, and returns None for anything click should see instead: an option the command does
not have, `-h`, `--help`, a flag given a value, a missing value, a value that starts with `-`
(click would take it; saying which is click's job), or one the option's `takes` refuses.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping


def read_plain(argv: list[str], *, flags: frozenset[str],
               takes: Mapping[str, Callable[[str], bool]],
               ) -> tuple[list[str], dict[str, str | bool]] | None:
    """The positionals and {option: value} (True for a flag) of a plain command line."""
    positionals: list[str] = []
    values: dict[str, str | bool] = {}
    rest = iter(argv)
    for token in rest:
        if token == "--":
            positionals.extend(rest)
            break
        if token in flags:
            values[token] = True
            continue
        option, equals, value = token.partition("=")
        if option in takes:
            if not equals:
                following = next(rest, None)
                if following is None or following.startswith("-"):
                    return None
                value = following
            if not takes[option](value):
                return None
            values[option] = value
            continue
        if token.startswith("-") and token != "-":
            return None  # --help, -h, an option the command does not have, --json=x
        positionals.append(token)
    return positionals, values
