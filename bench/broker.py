"""A brokered HTTP GET against a direct httpx GET to the same local server, same run.

    .venv/bin/python bench/broker.py [--requests N] [--blocks N]

One threaded HTTP/1.1 server on 127.0.0.1 (Nagle off, keep-alive, a 2 KiB JSON body). Blocks
of requests alternate between:
  direct      httpx.Client(trust_env=False), keep-alive, `client.get(url)` reading the body;
  broker      HttpBroker with a policy allowing 127.0.0.1:PORT (allow_private 127.0.0.1/32),
              a fresh session per request (one tool call making one request), `request()`;
  broker+dns  the same with a host name and an injected resolver (the lookup runs on the
              broker's DNS thread, as a real name would), for information;
  +secret     the literal URL with a declared secret: the header added, the response text
              and headers redacted, for information.
Both clients keep one connection alive, so the difference is the broker's own work: the
checks, the resolution and pinning, the response handling and redaction. Target (issue 11):
brokered p50 at most 2 ms over direct p50.
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import statistics
import threading
import time
from typing import Any

import httpx

from dyntools.capabilities import HttpBroker, policy_from_mapping
from dyntools.gate.capabilities import parse_capabilities

BODY = json.dumps({"items": [{"id": i, "name": f"item {i}"} for i in range(80)]}).encode()


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)

    def log_message(self, *args: Any) -> None:
        pass


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200, help="requests per block")
    parser.add_argument("--blocks", type=int, default=15, help="blocks of each kind")
    args = parser.parse_args()

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    hostport, named = f"127.0.0.1:{port}", f"bench.test:{port}"
    policy = policy_from_mapping({
        "http": {"allow": [hostport, named], "allow_private": ["127.0.0.1/32"]},
        "secrets": {"BENCH_TOKEN": {"env": "BENCH_TOKEN", "hosts": [hostport]}}})
    caps = parse_capabilities({"http": [hostport, named]})
    with_secret = parse_capabilities({"http": [hostport], "secrets": ["BENCH_TOKEN"]})
    broker = HttpBroker(policy, resolver=lambda host, _port: ["127.0.0.1"],
                        environ={"BENCH_TOKEN": "bench-token-0123456789abcdef"})
    client = httpx.Client(trust_env=False, http2=False)
    literal_url, named_url = f"http://{hostport}/items?q=1", f"http://{named}/items?q=1"

    def direct() -> None:
        response = client.get(literal_url)
        assert response.status_code == 200 and len(response.text) == len(BODY)

    def brokered(url: str, declared: Any = caps) -> None:
        session = broker.session(tool="bench", version=1, declared=declared,
                                 deadline=time.monotonic() + 10)
        answer = session.request({"method": "GET", "url": url})
        assert answer["status"] == 200 and len(answer["text"]) == len(BODY)

    kinds = {"direct": direct, "broker": lambda: brokered(literal_url),
             "broker+dns": lambda: brokered(named_url),
             "+secret": lambda: brokered(literal_url, with_secret)}
    samples: dict[str, list[float]] = {kind: [] for kind in kinds}
    clock = time.perf_counter
    try:
        for run in kinds.values():  # warm up: connections open, caches filled
            for _ in range(200):
                run()
        for _ in range(args.blocks):
            for kind, run in kinds.items():
                out = samples[kind]
                for _ in range(args.requests):
                    started = clock()
                    run()
                    out.append(clock() - started)
    finally:
        client.close()
        broker.close()
        server.shutdown()

    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"load average (1/5/15 min): {load}   {os.cpu_count()} CPUs   "
          f"{args.blocks} x {args.requests} requests per kind, interleaved")
    base50 = statistics.median(samples["direct"])
    base99 = _percentile(samples["direct"], 0.99)
    for kind in kinds:
        p50 = statistics.median(samples[kind])
        p99 = _percentile(samples[kind], 0.99)
        line = f"{kind:11} p50 {p50 * 1e6:8.1f} µs   p99 {p99 * 1e6:8.1f} µs"
        if kind != "direct":
            line += (f"   {(p50 - base50) * 1e6:+7.1f} µs p50 ({p50 / base50:.2f}x)"
                     f"   {(p99 - base99) * 1e6:+7.1f} µs p99")
        print(line)
    over = (statistics.median(samples["broker"]) - base50) * 1e3
    print(f"target: brokered p50 at most 2 ms over direct: {over:+.3f} ms, "
          f"{'met' if over <= 2.0 else 'MISSED'}")


if __name__ == "__main__":
    main()
