"""Capabilities, host side: the operator's policy, the HTTP broker and the verification
replay (issue 11). Nothing here imports the sandbox, the pipeline or the CLI.

    policy = resolve_capability_policy(args.capabilities)
    broker = HttpBroker(policy, audit=audit_event)
    session = broker.session(tool=name, version=v, declared=caps, deadline=deadline)
    session.request({"method": "GET", "url": "https://api.example.com/x"})

See docs/capabilities.md.
"""

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
    "CAPABILITIES_ENV",
    "EMPTY_POLICY",
    "FAILURE_KINDS",
    "BrokerSession",
    "CapabilityPolicy",
    "Grant",
    "Grants",
    "HttpBroker",
    "HttpFailure",
    "ReplayMismatch",
    "ReplaySession",
    "SecretRule",
    "address_problem",
    "load_capability_policy",
    "policy_from_mapping",
    "resolve_capability_policy",
    "system_resolver",
]
