# technique: queue.Queue.join waits for other threads' task_done: in a single-threaded tool it hangs; the gate accepts the name (str.join shares it)
# source: our own attack on issue 27's new surface
# verdict: sandbox_violation
"""Waits for a queue."""
import queue

NAME = "queue_join_waits"
DESCRIPTION = "Waits for a queue."
PARAMS = {"type": "object", "properties": {"secret": {"type": "string"}}, "required": ["secret"]}


def run(params):
    pending = queue.Queue()
    pending.put(params["secret"])
    pending.join()
    return {"seen": []}
