"""Searches an issue tracker's JSON API through the host, with a token the host adds."""
from typing import Any

from host import HttpError, http_get, http_post_json

NAME = "api_search_client"
DESCRIPTION = "Searches issues on api.example.com and can file a comment; the host adds the token."
PARAMS = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "maxLength": 200},
        "comment": {"type": "string", "maxLength": 2000},
        "local": {"type": "boolean"},
    },
    "required": ["query"],
}
CAPABILITIES = {
    "http": ["api.example.com", "127.0.0.1:8765"],
    "secrets": ["TRACKER_TOKEN"],
}
EXAMPLES = [
    {
        "params": {"query": "crash"},
        "result": {"count": 1, "titles": ["Crash on start"]},
        "http": [
            {
                "request": {"method": "GET", "url": "https://api.example.com/issues?q=crash"},
                "response": {"status": 200, "headers": {"content-type": "application/json"},
                             "text": "[{\"title\": \"Crash on start\"}]"},
            },
        ],
    },
    {
        "params": {"query": "crash", "comment": "Seen on 2.1 too", "local": True},
        "result": {"count": 1, "titles": ["Crash on start"], "commented": 201},
        "http": [
            {
                "request": {"method": "GET", "url": "http://127.0.0.1:8765/issues?q=crash"},
                "response": {"status": 200, "text": "[{\"title\": \"Crash on start\"}]"},
            },
            {
                "request": {"method": "POST", "url": "http://127.0.0.1:8765/comments",
                            "json": {"query": "crash", "text": "Seen on 2.1 too"}},
                "response": {"status": 201, "text": "{}"},
            },
        ],
    },
]


def base(params: dict[str, Any]) -> str:
    return "http://127.0.0.1:8765" if params.get("local") else "https://api.example.com"


def run(params):
    import json

    try:
        found = http_get(base(params) + "/issues", params={"q": params["query"]})
    except HttpError as error:
        return {"error": str(error)}
    issues = json.loads(found["text"])
    result = {"count": len(issues), "titles": [issue["title"] for issue in issues]}
    if params.get("comment"):
        posted = http_post_json(f"{base(params)}/comments",
                                {"query": params["query"], "text": params["comment"]})
        result["commented"] = posted["status"]
    return result
