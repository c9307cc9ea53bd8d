"""Capabilities, host side: the operator's policy, the HTTP broker and the verification
replay (issue 11). Nothing here imports the sandbox, the pipeline or the CLI.

    policy = resolve_capability_policy(args.capabilities)
    broker = HttpBroker(policy, audit=audit_event)
    session = broker.session(tool=name, version=v, declared=caps, deadline=deadline)
    session.request({"method": "GET", "url": "https://api.example.com/x"})

See docs/capabilities.md.
"""

from __future__ import annotations

from dyntools import lazy_exports

TYPE_CHECKING = False  # names resolve on first use: a call's host (hostcalls) needs no broker
if TYPE_CHECKING:
    from dyntools.capabilities.addresses import address_problem
    from dyntools.capabilities.broker import BrokerSession, HttpBroker, system_resolver
    from dyntools.capabilities.failures import FAILURE_KINDS, HttpFailure, ReplayMismatch
    from dyntools.capabilities.policy import (
        CAPABILITIES_ENV,
        EMPTY_POLICY,
        CapabilityPolicy,
        Grant,
        Grants,
        SecretRule,
        load_capability_policy,
        policy_from_mapping,
        resolve_capability_policy,
    )
    from dyntools.capabilities.replay import ReplaySession

__all__ = [
    'CAPABILITIES_ENV',
    'EMPTY_POLICY',
    'FAILURE_KINDS',
    'BrokerSession',
    'CapabilityPolicy',
    'Grant',
    'Grants',
    'HttpBroker',
    'HttpFailure',
    'ReplayMismatch',
    'ReplaySession',
    'SecretRule',
    'address_problem',
    'load_capability_policy',
    'policy_from_mapping',
    'resolve_capability_policy',
    'system_resolver',
]

_HOMES = {
    "BrokerSession": "dyntools.capabilities.broker",
    "CAPABILITIES_ENV": "dyntools.capabilities.policy",
    "CapabilityPolicy": "dyntools.capabilities.policy",
    "EMPTY_POLICY": "dyntools.capabilities.policy",
    "FAILURE_KINDS": "dyntools.capabilities.failures",
    "Grant": "dyntools.capabilities.policy",
    "Grants": "dyntools.capabilities.policy",
    "HttpBroker": "dyntools.capabilities.broker",
    "HttpFailure": "dyntools.capabilities.failures",
    "ReplayMismatch": "dyntools.capabilities.failures",
    "ReplaySession": "dyntools.capabilities.replay",
    "SecretRule": "dyntools.capabilities.policy",
    "address_problem": "dyntools.capabilities.addresses",
    "load_capability_policy": "dyntools.capabilities.policy",
    "policy_from_mapping": "dyntools.capabilities.policy",
    "resolve_capability_policy": "dyntools.capabilities.policy",
    "system_resolver": "dyntools.capabilities.broker",
}


__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
