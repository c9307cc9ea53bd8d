"""Composes two catalog tools: a slug for a title and the title's word counts."""
import host

NAME = "slug_and_count_composer"
DESCRIPTION = "Returns a URL slug and word counts for a title by calling two catalog tools."
PARAMS = {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}
CAPABILITIES = {"tools": ["slugify_text", "word_count"]}
EXAMPLES = [
    {"params": {"title": "Hello World"}, "result": {"slug": "hello-world", "words": 2}},
]


def run(params):
    slug = host.call_tool("slugify_text", {"text": params["title"]})
    counted = host.call_tool(name="word_count", params={"text": params["title"]})
    return {"slug": slug["slug"], "words": counted["words"]}
