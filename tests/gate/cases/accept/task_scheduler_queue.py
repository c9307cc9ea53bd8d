"""Round-robin scheduling with a bounded queue."""
from queue import Empty, Full, Queue

NAME = "task_scheduler_queue"
DESCRIPTION = "Simulates round-robin scheduling of tasks with a time slice; returns the finishing order and times."
PARAMS = {
    "type": "object",
    "properties": {
        "tasks": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 1}},
        "slice": {"type": "integer", "minimum": 1, "default": 2},
        "capacity": {"type": "integer", "minimum": 1, "default": 100},
    },
    "required": ["tasks"],
}
EXAMPLES = [
    {"params": {"tasks": {"a": 3, "b": 1, "c": 4}}, "result": {"order": ["b", "a", "c"], "finished_at": {"b": 3, "a": 6, "c": 8}}},
    {"params": {"tasks": {"a": 1, "b": 1}, "capacity": 1}, "result": {"error": "more than 1 tasks waiting"}},
]


def run(params):
    ready = Queue(maxsize=params.get("capacity", 100))
    try:
        for name, need in params["tasks"].items():
            ready.put_nowait([name, need])
    except Full:
        return {"error": f"more than {ready.qsize()} tasks waiting"}
    clock = 0
    order = []
    finished = {}
    step = params.get("slice", 2)
    while True:
        try:
            task = ready.get_nowait()
        except Empty:
            break
        used = min(step, task[1])
        clock += used
        task[1] -= used
        if task[1]:
            ready.put(task)
        else:
            order.append(task[0])
            finished[task[0]] = clock
    return {"order": order, "finished_at": finished}
