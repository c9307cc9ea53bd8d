"""A DNS lookup that never answers costs the request its deadline and nothing more: the
process still exits at once (lookups run on daemon threads), and a stuck lookup holds one
of a bounded number of slots."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_a_hung_lookup_never_holds_up_the_exit() -> None:
    code = textwrap.dedent('''
        import threading, time
        from dyntools.capabilities import HttpBroker, HttpFailure, policy_from_mapping
        from dyntools.gate.capabilities import parse_capabilities

        policy = policy_from_mapping({"http": {"allow": ["api.example.com"]}})
        hang = threading.Event()
        broker = HttpBroker(policy, resolver=lambda host, port: hang.wait() or [])
        declared = parse_capabilities({"http": ["api.example.com"]})
        for _ in range(6):  # more than the lookup slots: the later ones time out at once
            session = broker.session(tool="t", version=1, declared=declared,
                                     deadline=time.monotonic() + 0.2)
            try:
                session.request({"method": "GET", "url": "https://api.example.com/"})
            except HttpFailure as failure:
                assert failure.kind == "timeout", failure.kind
        print("done")
    ''')
    # The run's timeout is the hang guard: a join at exit would wait for ever (the lookups
    # never answer); six deadlines of 0.2 s take about a second.
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "done"
