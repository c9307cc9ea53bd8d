"""The review workbench's speed (issue 14): `dyntools ui` over a registry of 1,000 versions,
measured over HTTP on 127.0.0.1 against a baseline from the same server in the same run.

    registry page  GET /                   every tool, its versions, statuses, capabilities
                                           target < 300 ms
    version page   GET /tools/T/v/N        source with the gate run now, provenance, ...
                                           target < 100 ms
    baseline       GET /static/ui.css      the same server's HTTP floor (a static file)

The registry is built through its own writer API (`Registry.add_version`: gated, durable),
200 tools x 5 versions by default, one in five tools with a pending version that widens its
capabilities. The server is the real `dyntools ui` process; requests are interleaved so load
from elsewhere on the machine falls on every kind alike. Median and p90 of whole responses.

    .venv/bin/python bench/ui.py [--tools 200] [--versions 5] [--rounds 40]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from dyntools.base.log import configure_logging
from dyntools.gate.policy import load_policy
from dyntools.registry import Registry

TOOL = '''"""Summarises a block of text (variant @V@)."""
import json
import re

NAME = "@NAME@"
DESCRIPTION = "Summarises a block of text: @WORDS@ (variant @V@)."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"},
          "top": {"type": "integer", "minimum": 1}}, "required": ["text"]}
@CAPS@EXAMPLES = [{"params": {"text": "a b a", "top": 1}, "result": {"words": 3}}]
STOPWORDS = ["the", "a", "an", "and", "or", "of", "to", "in"]


def words_of(text):
    return [w for w in re.findall(r"[a-z0-9']+", text.lower()) if w not in STOPWORDS]


def top_words(words, top):
    counts = {}
    for word in words:
        counts[word] = counts.get(word, 0) + 1
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [[word, n] for word, n in ranked[:top]]


def run(params):
    words = words_of(params["text"])
    return json.loads(json.dumps({"words": len(words),
                                  "top": top_words(words, params.get("top", 5))}))
'''
WORDS = ["slug", "count", "title", "roman", "date", "url", "json", "letters", "distance",
         "temperature"]


def source(name: str, variant: int, *, caps: str = "") -> bytes:
    words = " ".join(WORDS[(variant + i) % len(WORDS)] for i in range(3))
    return (TOOL.replace("@NAME@", name).replace("@V@", str(variant))
            .replace("@WORDS@", words).replace("@CAPS@", caps)).encode()


def build(root: Path, tools: int, versions: int) -> float:
    policy = load_policy()
    registry = Registry.open(root, policy)
    started = time.perf_counter()
    for t in range(tools):
        name = f"tool_{t:03d}"
        for v in range(1, versions + 1):
            widen = t % 5 == 0 and v == versions
            caps = ('CAPABILITIES = {"http": ["api.example.com"]}\n' if v > 1 else "")
            if widen:
                caps = 'CAPABILITIES = {"http": ["api.example.com", "x.example.net"]}\n'
            registry.add_version(
                name, source(name, t * 10 + v, caps=caps),
                {"generator": "bench", "model": "none", "attempts": 1},
                status="pending" if widen else "approved",
                reason="awaiting approval (policy: capabilities)" if widen else None)
    return time.perf_counter() - started


def start_server(root: Path) -> tuple[subprocess.Popen[str], str, str, float]:
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "dyntools", "ui", "--registry", str(root), "--port", "0",
         "--no-watch"], stderr=subprocess.PIPE, text=True,
        env={k: v for k, v in os.environ.items() if k != "DYNTOOLS_AUDIT_LOG"})
    assert process.stderr is not None
    url = token = ""
    while not url:
        line = process.stderr.readline()
        if not line:
            raise SystemExit(f"dyntools ui did not start (exit {process.wait()})")
        if line.startswith("session token (shown once): "):
            token = line.split(": ", 1)[1].strip()
        if line.startswith("open: "):
            url = line.split(": ", 1)[1].split("/login")[0].strip()
    with httpx.Client(base_url=url) as probe:
        while True:
            try:
                probe.get("/login")
                break
            except httpx.TransportError:
                time.sleep(0.02)
    return process, url, token, time.perf_counter() - started


def quantiles(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[min(len(ordered) - 1,
                                                   round(0.9 * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=200)
    parser.add_argument("--versions", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()
    configure_logging("error")
    with tempfile.TemporaryDirectory(prefix="dyntools-bench-ui-") as tmp:
        root = Path(tmp) / "registry"
        built = build(root, args.tools, args.versions)
        total = args.tools * args.versions
        process, url, token, startup = start_server(root)
        port = url.rsplit(":", 1)[1]
        pages = {
            "baseline /static/ui.css": "/static/ui.css",
            "registry page /": "/",
            "version page /tools/T/v/N": f"/tools/tool_{args.tools // 2:03d}/v/{args.versions}",
            "search /?q=...": "/?q=roman+numeral+date",
            "diff /tools/T/diff": f"/tools/tool_000/diff?a=1&b={args.versions}",
        }
        times: dict[str, list[float]] = {label: [] for label in pages}
        sizes: dict[str, int] = {}
        try:
            with httpx.Client(base_url=url, cookies={f"dyntools_ui_{port}": token},
                              timeout=60) as http:
                cold: dict[str, float] = {}
                for label, path in pages.items():  # the first reads fill the content cache
                    started = time.perf_counter()
                    assert http.get(path).status_code == 200, path
                    cold[label] = time.perf_counter() - started
                for _ in range(args.rounds):
                    for label, path in pages.items():
                        started = time.perf_counter()
                        response = http.get(path)
                        times[label].append(time.perf_counter() - started)
                        assert response.status_code == 200, path
                        sizes[label] = len(response.content)
        finally:
            process.terminate()
            process.wait(timeout=30)
    load = os.getloadavg()
    print(f"ui: {total} versions ({args.tools} tools x {args.versions}; built in {built:.1f} s "
          f"through Registry.add_version); dyntools ui up in {startup * 1000:.0f} ms "
          f"(opens, re-gates and hash-checks all)")
    print(f"  {args.rounds} rounds, interleaved, whole responses over HTTP on 127.0.0.1; "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    base = quantiles(times["baseline /static/ui.css"])[0]
    targets = {"registry page /": 0.300, "version page /tools/T/v/N": 0.100}
    for label, values in times.items():
        median, p90 = quantiles(values)
        target = targets.get(label)
        verdict = (f"   target < {target * 1000:.0f} ms: {'OK' if p90 < target else 'MISSED'}"
                   if target else "")
        print(f"  {label:<28} median {median * 1000:7.2f} ms  p90 {p90 * 1000:7.2f} ms  "
              f"{median / base:6.1f}x baseline  {sizes[label] / 1024:6.1f} KiB  "
              f"(first {cold[label] * 1000:.0f} ms){verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
