"""Slugs every title and reports the longest slug."""
import json
import re

MAX_SLUG = 40


def shorten(slug: str, limit: int) -> str:
    if len(slug) <= limit:
        return slug
    return re.sub(r"-[^-]*$", "", slug[:limit])


slugs = {}
for title in inputs.get("titles", []):
    slug = tools.slugify_text(text=title)["slug"]
    slugs[title] = shorten(slug, MAX_SLUG)
longest = max(slugs.values(), key=len, default="")
result = {"slugs": slugs, "longest": longest, "as_json": json.dumps(sorted(slugs.values()))}
