# technique: queue.Queue.queue is the deque behind it: not among the methods a Queue exposes
# source: our own attack on issue 27's new surface
# verdict: sandbox_violation
"""Peeks into a queue."""
import queue

NAME = "queue_internal_deque"
DESCRIPTION = "Peeks into a queue."
PARAMS = {"type": "object", "properties": {"secret": {"type": "string"}}, "required": ["secret"]}


def run(params):
    pending = queue.Queue()
    pending.put(params["secret"])
    return {"seen": list(pending.queue)}
