# A code-mode script: the gate checks it as it checks tools; each tools.NAME call runs in
# that tool's own sandboxed worker.
title = inputs["title"]
result = {
    "slug": tools.slugify_text(text=title)["slug"],
    "words": tools.word_count(text=title)["words"],
}
