# technique: queue.Queue's lock, a threading primitive
# source: dyntools issue 27 (queue.Queue with exactly its queue methods)
# family: names
"""Attack case: a queue's lock."""
import queue

NAME = "queue_mutex"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    lock = queue.Queue().mutex  # expect: DT303
    return {"x": lock.locked()}
