"""Counts the words of several texts with the word_count tool, and adds them up."""
from host import ToolError

total = 0
failed = []
for index, text in enumerate(inputs["texts"]):
    try:
        counted = tools.word_count(text=text)
    except ToolError as exc:
        failed.append({"index": index, "reason": exc.reason})
        continue
    total += counted["words"]
    print(f"text {index}: {counted['words']} words")
result = {"total": total, "failed": failed}
