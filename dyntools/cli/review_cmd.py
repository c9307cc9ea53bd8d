"""The review workflow: init, pending, approve, reject, activate, retire, keygen, sign-state,
alias and unalias.

    dyntools init [PATH] --approval always      the registry holds every new version back
    dyntools pending                            what waits for a decision
    dyntools diff NAME 1 2; dyntools show NAME --version 2
    dyntools approve NAME 2 --by alice --reason "read it" --sign-key alice.key
    dyntools reject NAME 3 --reason "calls out to ..."
    dyntools activate NAME 1 --reason "v2 misbehaves"     forward or back
    dyntools retire NAME 4 --reason "tampered on disk, incident 12"
    dyntools sign-state [NAME...] --sign-key alice.key    the first record of each chain
    dyntools alias count_words word_count                count_words serves word_count
    dyntools unalias count_words                          and no longer

Each decision records who (`--by`, else the login name), when and why in the tool's manifest
and the audit log; `show` and `list` show it. With `--sign-key` (or DYNTOOLS_SIGNING_KEY) it
is also a signed record of the tool's decision chain (dyntools/registry/chain.py); with
trusted keys configured, a decision needs one of them (exit 14). `approve` verifies exactly
as `ensure` does (the version's EXAMPLES, the `--example`s given and the current version's
contract unless `--contract-change`, in the sandbox). Nothing of a failure is final unless
the version broke its own EXAMPLES: then it is recorded as rejected with the failing example
(exit 12). A failure of only what the reviewer added (`--example`, or the current version's
contract without `--contract-change`) decides nothing (exit 12, the version stays pending);
a version made with `--contract-change` is approved only with it (exit 2 otherwise, nothing
runs), and the command `ensure` and `pending` suggest carries it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from dyntools.base.terminal import terminal_safe
from dyntools.cli.app import main
from dyntools.cli.options import (
    allow_weaker_click,
    allow_weaker_option,
    json_option,
    sign_key_click,
    signer_option,
)
from dyntools.cli.registry_cmd import _echo_json, _fail, registry_options, writer_options
from dyntools.errors import DyntoolsError, UsageError
from dyntools.registry.config import APPROVAL_POLICIES, RegistryConfig, read_config, write_config
from dyntools.registry.core import Registry
from dyntools.registry.records import VersionRecord


def _by_option(command: Any) -> Any:
    return click.option("--by", "by", default=None,
                        help="Who decides (default: the login name).")(command)


def _decision_options(reason_help: str, *, reason_required: bool) -> Callable[[Any], Any]:
    """What every decision on one version takes: the writer's options, NAME, VERSION,
    --reason, --by, --sign-key and --json."""
    options: list[Callable[[Any], Any]] = [
        writer_options, click.argument("name"),
        click.argument("version", type=click.IntRange(min=1)),
        click.option("--reason", required=reason_required, default=None, help=reason_help),
        _by_option, sign_key_click,
        click.option("--json", "as_json", is_flag=True, help="Print the record as JSON.")]

    def add(command: Any) -> Any:
        for option in reversed(options):
            command = option(command)
        return command

    return add


def _echo_decision(record: VersionRecord, as_json: bool, text: str) -> None:
    """A decision's record as JSON, or `text` (which says who decided)."""
    if as_json:
        _echo_json(record.as_dict())
    else:
        click.echo(text)


def _decided_line(record: VersionRecord) -> str:
    last = record.last_decision
    if last is None:
        return ""
    why = f"; reason: {terminal_safe(last.get('reason'))}" if last.get("reason") else ""
    # Said of this decision (its chain record signed by a key), not of the version's record,
    # which an earlier signed approval may carry.
    signed = ", signed" if last.get("signed_by_key") else ""
    return f" (by {terminal_safe(last.get('by'))} at {last.get('time')}{signed}{why})"


def _current_text(registry: Registry, name: str) -> str:
    current = registry.tool(name).current
    return f"v{current}" if current is not None else "none"


@main.command()
@click.argument("path", required=False)
@click.option("--registry", "registry_path", type=str, default=None,
              help="Registry folder, as every command takes it (the same as PATH; default: "
                   "DYNTOOLS_REGISTRY, else ./generated_tools).")
@click.option("--approval", type=click.Choice(APPROVAL_POLICIES), default=None,
              help="Which verified versions wait for a reviewer: never (default), "
                   "capabilities (versions that widen the current version's CAPABILITIES, "
                   "or that declare any when the tool has no current version), always.")
def init(path: str | None, registry_path: str | None, approval: str | None) -> None:
    """Create a registry folder (PATH or --registry, else DYNTOOLS_REGISTRY, else
    ./generated_tools) and its config.json; on an existing registry, set its approval
    policy."""
    import os

    from dyntools.cli.options import registry_root
    from dyntools.registry.identity import IdentityError, ensure_identity
    from dyntools.registry.store import fsync_dir

    if path is not None and registry_path is not None and path != registry_path:
        raise click.UsageError(f"two registries named: PATH {path!r} and --registry "
                               f"{registry_path!r}; give one")
    try:
        root = registry_root(path if path is not None else registry_path, must_exist=False)
        existing = read_config(root) if root.exists() else RegistryConfig()
        config = RegistryConfig(approval=approval or existing.approval)
        try:
            if not root.exists():
                root.mkdir(parents=True)
                fsync_dir(root.parent)
            if not os.access(root, os.W_OK):
                raise UsageError(f"registry {root} is read-only")
            written = write_config(root, config)
            ensure_identity(root)  # what every signed decision here binds (identity.py)
        except IdentityError as exc:
            raise UsageError(f"cannot initialise registry {root}: {exc}") from None
        except OSError as exc:
            raise UsageError(f"cannot initialise registry {root}: {exc.strerror or exc}") \
                from None
    except DyntoolsError as exc:
        _fail(exc)
        return
    click.echo(f"registry {root}: approval {config.approval} ({written})")


@main.command()
@click.argument("keyfile")
def keygen(keyfile: str) -> None:
    """Write a new Ed25519 key pair: KEYFILE (private, mode 0600) and KEYFILE.pub (the line
    to add to a trusted keys file). An existing file is never overwritten."""
    from dyntools.registry.signing import generate_keypair

    try:
        private, public_path, public = generate_keypair(keyfile)
    except DyntoolsError as exc:
        _fail(exc)
        return
    click.echo(f"private key: {private} (keep it secret; mode 0600)")
    click.echo(f"public key:  {public_path}: ed25519 {public}")


@main.command()
@registry_options
@click.option("--json", "as_json", is_flag=True, help="Print the pending versions as JSON.")
def pending(registry: Registry, as_json: bool) -> None:
    """List versions that passed gate and verification and wait for a reviewer."""
    from dyntools.pipeline.events import approve_command_for

    records = [record for state in registry.tools()
               for _, record in sorted(state.records.items()) if record.status == "pending"]
    if as_json:
        _echo_json({"registry": str(registry.root), "approval": registry.approval,
                    "pending": [r.as_dict() for r in records]})
        return
    if not records:
        click.echo(f"nothing is pending in {registry.root} (approval policy: "
                   f"{registry.approval})")
        return
    for record in records:
        current = _current_text(registry, record.name)
        prov = record.provenance
        who = "/".join(str(prov.get(k)) for k in ("generator", "model") if prov.get(k))
        click.echo(f"{record.name} v{record.version}  (current {current})  created "
                   f"{record.created} by {who or 'unknown'}  sha256 {record.sha256[:12]}")
        base = f" {current[1:]}" if current != "none" else ""
        click.echo(f"  read: dyntools show {record.name} --version {record.version}"
                   + (f"; dyntools diff {record.name}{base} {record.version}" if base else ""))
        click.echo(f"  then: {approve_command_for(record)} --reason TEXT   "
                   f"or   dyntools reject {record.name} {record.version} --reason TEXT")


@main.command()
@writer_options
@click.argument("name")
@click.argument("version", type=click.IntRange(min=1), required=False)
@click.option("--file", "file_path", type=click.Path(dir_okay=False, exists=True), default=None,
              help="Add this file as a new version instead of approving a recorded one.")
@click.option("--example", "example_texts", multiple=True,
              help='An example the version must also pass: {"params": {...}, "result": '
                   "{...}}. Repeatable.")
@click.option("--contract-change", is_flag=True,
              help="Do not hold the version to the examples the current version passed "
                   "(required for a version made with --contract-change).")
@click.option("--reason", default=None, help="Why it is approved (recorded).")
@_by_option
@sign_key_click
@click.option("--activate/--no-activate", default=True, show_default=True,
              help="Make the approved version current.")
@allow_weaker_click
@click.option("--json", "as_json", is_flag=True, help="Print the record as JSON.")
def approve(registry: Registry, *, name: str, version: int | None, file_path: str | None,
            example_texts: tuple[str, ...], contract_change: bool, reason: str | None,
            by: str | None, sign_key: str | None, activate: bool, allow_weaker_sandbox: bool,
            as_json: bool) -> None:
    """Approve a pending version or a dropped-in vN.py (NAME VERSION), or add a file as a new
    version (NAME --file PATH), after verifying it as ensure does.

    Exit 12 when verification fails: recorded as rejected when the version broke its own
    EXAMPLES, left pending when only an --example or the current version's contract failed.
    Exit 2, nothing run, for a version made with --contract-change approved without it.
    """
    from dyntools.pipeline.dyntools import Dyntools

    if (version is None) == (file_path is None):
        raise UsageError("give either VERSION (a pending or dropped-in version) or --file PATH")
    examples = [json_option(text, "--example") for text in example_texts]
    signer = signer_option(sign_key)
    data = None
    if file_path is not None:
        # The gate refuses anything over its size limit; reading one byte more is enough to
        # know. A regular file only: a FIFO or a device is refused without a wait.
        from dyntools.base.regular_files import read_regular

        try:
            data = read_regular(file_path, registry.policy.limits.max_bytes + 1)
        except OSError as exc:
            raise UsageError(f"--file {file_path}: cannot read it ({exc.strerror or exc})"
                             ) from None
    with Dyntools(registry, signer=signer,
                  allow_weaker_sandbox=allow_weaker_option(allow_weaker_sandbox)) as dt:
        record, report = dt.approve(
            name, version, source=data, examples=examples, contract_change=contract_change,
            by=by, reason=reason, activate=activate,
            provenance={"source_file": str(Path(file_path).resolve())} if file_path else None)
    if as_json:
        _echo_json({**record.as_dict(), "verification": report.as_dict()})
        return
    click.echo(f"approved {name} v{record.version} (sha256 {record.sha256[:12]}; "
               f"{report.summary()}){_decided_line(record)}; current is "
               f"{_current_text(registry, name)}")


@main.command()
@_decision_options("Why it is rejected (recorded).", reason_required=True)
def reject(registry: Registry, name: str, version: int, reason: str, by: str | None,
           sign_key: str | None, as_json: bool) -> None:
    """Reject a pending version (or a dropped-in file): kept on disk, never served."""
    record = registry.decide(name, version, "reject", reason=reason, by=by,
                             signer=signer_option(sign_key))
    _echo_decision(record, as_json, f"rejected {name} v{version}{_decided_line(record)}")


@main.command()
@_decision_options("Why (recorded).", reason_required=False)
def activate(registry: Registry, name: str, version: int, reason: str | None, by: str | None,
             sign_key: str | None, as_json: bool) -> None:
    """Move the current pointer of NAME to any approved VERSION, forward or back."""
    from dyntools.registry.core import default_approver

    signer = signer_option(sign_key)
    record = registry.activate(name, version, signer=signer,
                               decision={"by": by or default_approver(), "reason": reason})
    _echo_decision(record, as_json,
                   f"{name}: current is now v{record.version}{_decided_line(record)}")


@main.command()
@_decision_options("Why it is retired (recorded).", reason_required=True)
def retire(registry: Registry, name: str, version: int, reason: str, by: str | None,
           sign_key: str | None, as_json: bool) -> None:
    """Retire a version (quarantined or not): kept on disk and in history, never served, and
    no longer a problem for review. If it was current, the pointer moves to the newest good
    version below it."""
    record = registry.decide(name, version, "retire", reason=reason, by=by,
                             signer=signer_option(sign_key))
    _echo_decision(record, as_json, f"retired {name} v{version}{_decided_line(record)}; "
                                    f"current is {_current_text(registry, name)}")


@main.command("sign-state")
@writer_options
@click.argument("names", nargs=-1)
@sign_key_click
@_by_option
@click.option("--reason", default=None, help="Why (recorded in the signed record).")
@click.option("--accept-manifest", is_flag=True,
              help="Sign the manifest's state even where the tool's chain says otherwise, or "
                   "does not verify (after decisions made without a key, or to restart a "
                   "broken chain from its valid part). Says what it overrides.")
@click.option("--json", "as_json", is_flag=True, help="Print what was signed as JSON.")
def sign_state(registry: Registry, names: tuple[str, ...], sign_key: str | None,
               by: str | None, reason: str | None, accept_manifest: bool,
               as_json: bool) -> None:
    """Sign each tool's pointer and statuses as they are today: the first record of its
    decision chain (NAME..., default every tool). With trusted keys configured, a tool
    without a chain is not served until this runs. A tool whose chain already says the same
    is left as it is; one whose chain disagrees is refused unless --accept-manifest.

    Exit 14 without a signing key (or, with trusted keys, with one they do not list), 16 when
    a tool's chain disagrees or does not verify."""
    from dyntools.cli.common import exit_code_for
    from dyntools.errors import SigningKeyRequired
    from dyntools.registry.records import require_valid_name

    for name in names:
        require_valid_name(name)
    signer = signer_option(sign_key)
    if signer is None:
        raise SigningKeyRequired("sign-state signs with a key: give --sign-key FILE (or set "
                                 "DYNTOOLS_SIGNING_KEY)")
    targets = list(names) or [state.name for state in registry.tools() if state.records]
    if not targets and not as_json:
        click.echo(f"no tools in {registry.root}")
    rows: list[dict[str, Any]] = []
    failed: DyntoolsError | None = None
    for name in targets:
        try:
            done = registry.sign_state(name, signer, by=by, reason=reason,
                                       accept_manifest=accept_manifest)
        except DyntoolsError as exc:
            failed = failed or exc
            rows.append({"name": name, "error": exc.as_dict()})
            if not as_json:
                click.echo(f"{name}: error: {terminal_safe(exc.message)}", err=True)
            continue
        head = done.head
        rows.append({"name": name, "signed": done.appended,
                     "head": head.as_dict() if head is not None else None,
                     "overridden": list(done.overridden),
                     "unsigned": list(done.unsigned)})
        if as_json or head is None:
            continue
        statuses = ", ".join(f"v{v} {status}" for v, status in sorted(head.statuses.items()))
        current = f"v{head.current}" if head.current is not None else "none"
        if done.appended:
            click.echo(f"{name}: signed #{head.seq} (current {current}; {statuses or 'none'})")
            for line in done.overridden:
                click.echo(f"  over the chain, which said: {terminal_safe(line)}")
        else:
            click.echo(f"{name}: already signed: #{head.seq} {terminal_safe(head.action)} by "
                       f"{terminal_safe(head.by)} says current {current}")
        for version in done.unsigned:
            # The chain vouches for the pointer, not for what a version holds: trusted keys
            # keep quarantining it (unsigned) until someone signs a decision on it.
            click.echo(f"  v{version} was approved without a key: its record is unsigned (read "
                       f"it, then dyntools activate {name} {version} --sign-key KEY)")
    if as_json:
        _echo_json({"registry": str(registry.root), "tools": rows})
    if failed is not None:
        sys.exit(exit_code_for(failed))


@main.command("alias")
@writer_options
@click.argument("name")
@click.argument("target")
@click.option("--reason", default=None, help="Why (recorded).")
@_by_option
@sign_key_click
@click.option("--json", "as_json", is_flag=True, help="Print the alias as JSON.")
def alias_cmd(registry: Registry, name: str, target: str, reason: str | None, by: str | None,
              sign_key: str | None, as_json: bool) -> None:
    """Make NAME serve TARGET's current version (what ensure --reuse-similar records): NAME
    must have no versions of its own. With --sign-key it is a signed record of NAME's
    decision chain; with trusted keys it needs one of them (exit 14)."""
    from dyntools.registry.records import require_valid_name

    require_valid_name(target)
    state = registry.set_alias(name, target, by=by, reason=reason,
                               signer=signer_option(sign_key))
    if as_json:
        _echo_json({"name": name, "alias_of": state.alias})
        return
    click.echo(f"{name}: an alias of {state.alias} (dyntools unalias {name} removes it)")


@main.command("unalias")
@writer_options
@click.argument("name")
@click.option("--reason", default=None, help="Why (recorded).")
@_by_option
@sign_key_click
@click.option("--json", "as_json", is_flag=True, help="Print what was removed as JSON.")
def unalias_cmd(registry: Registry, name: str, reason: str | None, by: str | None,
                sign_key: str | None, as_json: bool) -> None:
    """Remove the alias NAME: it no longer serves another tool (which is left as it is).
    Signed like alias; with trusted keys it needs one of the keys (exit 14)."""
    target = registry.remove_alias(name, by=by, reason=reason, signer=signer_option(sign_key))
    if as_json:
        _echo_json({"name": name, "alias_of": None, "was_alias_of": target})
        return
    click.echo(f"{name}: no longer an alias of {target}")
