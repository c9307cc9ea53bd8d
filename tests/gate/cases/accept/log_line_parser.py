"""Parses access-log style lines into structured records and summarises them."""
import re
from collections import Counter
from datetime import datetime, timezone

NAME = "log_line_parser"
DESCRIPTION = "Parses common-log-format lines into records (ip, time, method, path, status, size) and counts statuses."
PARAMS = {
    "type": "object",
    "properties": {"log": {"type": "string", "description": "one request per line"}},
    "required": ["log"],
}
EXAMPLES = [
    {
        "params": {
            "log": (
                '203.0.113.9 - - [10/Oct/2023:13:55:36 -0700] "GET /index.html HTTP/1.1" 200 2326\n'
                '198.51.100.4 - bob [10/Oct/2023:13:56:01 -0700] "POST /api/login HTTP/1.1" 401 -\n'
                "garbage line\n"
            )
        },
        "result": {
            "records": [
                {"ip": "203.0.113.9", "user": None, "time": "2023-10-10T20:55:36+00:00", "method": "GET",
                 "path": "/index.html", "status": 200, "bytes": 2326},
                {"ip": "198.51.100.4", "user": "bob", "time": "2023-10-10T20:56:01+00:00", "method": "POST",
                 "path": "/api/login", "status": 401, "bytes": 0},
            ],
            "statuses": {"200": 1, "401": 1},
            "skipped_lines": [3],
        },
    },
]

LINE_PATTERN = r'^(\S+) \S+ (\S+) \[([^\]]+)\] "(\S+) (\S+) [^"]*" (\d{3}) (\d+|-)$'
TIME_FORMAT = "%d/%b/%Y:%H:%M:%S %z"


def parse_line(line: str) -> dict | None:
    match = re.match(LINE_PATTERN, line.strip())
    if match is None:
        return None
    ip, user, stamp, method, path, status, size = match.groups()
    try:
        moment = datetime.strptime(stamp, TIME_FORMAT)
    except ValueError:
        return None
    return {
        "ip": ip,
        "user": None if user == "-" else user,
        "time": moment.astimezone(timezone.utc).isoformat(),
        "method": method,
        "path": path,
        "status": int(status),
        "bytes": 0 if size == "-" else int(size),
    }


def run(params):
    records, skipped = [], []
    for number, line in enumerate(params["log"].splitlines(), start=1):
        if not line.strip():
            continue
        if (record := parse_line(line)) is None:
            skipped.append(number)
        else:
            records.append(record)
    statuses = Counter(str(record["status"]) for record in records)
    return {"records": records, "statuses": dict(sorted(statuses.items())), "skipped_lines": skipped}
