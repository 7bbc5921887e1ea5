"""``obj.__dict__`` (and ``vars(obj)``) of an object from outside the frame, read after the trace stored
attributes on it.

That read was a graph break ("__dict__ after the trace stored attributes of the object": the real dict does
not hold the stores until they are replayed after the graph). The dict is now read with the stores laid
over it, as Python's dict will be once they are replayed: a stored name keeps its place, a new one comes
last. An LR scheduler's ``state_dict()`` after ``step()`` reads its ``__dict__`` that way."""

import torch

import loom


def _compiled(fn):
    loom.reset()
    return loom.compile(fn, backend="eager", options={"strict": True})


def _counts():
    stats = loom.stats()
    return stats["graphs"], stats["graph_breaks"]


class Box:
    def __init__(self):
        self.count = 1
        self.scale = 2.0
        self.name = "box"


def store_then_read(x, box):
    box.count += 1
    box.extra = x * box.scale
    box.name = "changed"
    d = box.__dict__
    return x + 1, list(d), d["count"], d["extra"], vars(box)["name"], len(d)


def test_dict_read_after_stores_sees_them_in_place():
    x = torch.arange(3.0)
    eager_box, box = Box(), Box()
    expected = store_then_read(x, eager_box)
    actual = _compiled(store_then_read)(x, box)
    assert _counts() == (1, 0)
    torch.testing.assert_close(actual[0], expected[0])
    assert actual[1] == expected[1] == ["count", "scale", "name", "extra"]
    assert actual[2] == expected[2] and actual[4] == expected[4] and actual[5] == expected[5]
    torch.testing.assert_close(actual[3], expected[3])
    assert list(vars(box)) == list(vars(eager_box)) and box.count == 2 and box.name == "changed"


def delete_store_then_read(x, box):
    del box.count
    box.count = 5
    return x + 1, list(box.__dict__)


def test_a_delete_then_store_still_matches_eager():
    x = torch.arange(3.0)
    expected = delete_store_then_read(x, Box())
    actual = _compiled(delete_store_then_read)(x, Box())
    assert actual[1] == expected[1] == ["scale", "name", "count"]


class Slotted:
    __slots__ = ("__dict__", "a")

    def __init__(self):
        self.a = 1
        self.b = 2


def store_slot_then_read(x, obj):
    obj.a = 10
    obj.b = 20
    return x + 1, dict(obj.__dict__), obj.a


def test_a_slot_stored_in_the_frame_stays_out_of_the_dict():
    x = torch.arange(3.0)
    expected = store_slot_then_read(x, Slotted())
    actual = _compiled(store_slot_then_read)(x, Slotted())
    assert actual[1:] == expected[1:] == ({"b": 20}, 10)


def scheduler_state(x, sched):
    sched.step()
    state = sched.state_dict()
    return x * state["last_epoch"], state["_last_lr"], sorted(state)


def _scheduler():
    opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(2))], lr=0.1)
    return torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)


def test_lr_scheduler_state_dict_after_step_in_one_graph():
    x = torch.arange(3.0)
    expected = scheduler_state(x, _scheduler())
    actual = _compiled(scheduler_state)(x, _scheduler())
    assert _counts() == (1, 0)
    torch.testing.assert_close(actual[0], expected[0])
    assert actual[1:] == expected[1:]
