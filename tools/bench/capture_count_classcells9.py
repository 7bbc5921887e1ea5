"""Classes made inside the compiled frame whose methods read values of each call, for ``capture_count.py --only
classcells9``: context managers and iterators appending to a list made in the call, reading the tensor argument,
writing a ``nonlocal`` counter; subclasses and users of such classes, their properties, static methods and
exception classes, one made in an inlined helper, and a body that itself reads a value of the call (still a
break at the class statement). Each is written afresh over one tensor.
"""

from __future__ import annotations


def c_cc9_exit_logs_to_local_list(x):
    log = []

    class Scope:
        def __enter__(self):
            log.append("enter")
            return self

        def __exit__(self, *exc):
            log.append("exit")

    with Scope():
        x = x + 1
    with Scope():
        x = x * 2
    return x, log


def c_cc9_getitem_protocol_reads_tensor_argument(x):
    class Rows:
        def __getitem__(self, i):
            if i >= 3:
                raise IndexError(i)
            return x * i

    total = x * 0
    for row in Rows():
        total = total + row
    return total


def c_cc9_nonlocal_counter_in_methods(x):
    calls = 0

    class Counted:
        def run(self, t):
            nonlocal calls
            calls += 1
            return t.sin()

    c = Counted()
    y = c.run(x) + c.run(x + 1)
    return y + calls, calls


def c_cc9_subclass_of_class_made_per_call(x):
    log = []

    class Base:
        def step(self, t):
            log.append("base")
            return t + 1

    class Child(Base):
        def step(self, t):
            log.append("child")
            return super().step(t) * 2

    return Child().step(x), log, issubclass(Child, Base)


def c_cc9_class_naming_class_made_per_call(x):
    made = []

    class Leaf:
        def __init__(self, t):
            made.append(self)
            self.t = t

    class Factory:
        def make(self, t):
            return Leaf(t.cos())

    leaf = Factory().make(x)
    return leaf.t + len(made), type(leaf).__name__


def c_cc9_property_and_staticmethod_read_cells(x):
    log = []
    scale = x.shape[0]

    class Scaled:
        @staticmethod
        def note(what):
            log.append(what)

        @property
        def factor(self):
            Scaled.note("factor")
            return scale

    s = Scaled()
    return x * s.factor, log


def c_cc9_exception_class_method_logs(x):
    log = []

    class Failed(Exception):
        def record(self):
            log.append(str(self))

    try:
        raise Failed("step 1")
    except Failed as e:
        e.record()
    return x + len(log), log


def _make_logger(log):
    class Logger:
        def note(self, what):
            log.append(what)

    return Logger()


def c_cc9_class_made_in_inlined_helper(x):
    log = []
    logger = _make_logger(log)
    logger.note("a")
    logger.note("b")
    return x + len(log), log


def c_cc9_class_attribute_counter_and_local_log(x):
    log = []

    class Tracked:
        count = 0

        def __init__(self):
            type(self).count += 1
            log.append(type(self).count)

    Tracked()
    Tracked()
    return x + Tracked.count, log


def c_cc9_body_reads_value_of_call_breaks(x):
    log = [1, 2]

    class Sized:
        size = len(log)  # the body itself reads the call's list: a break at the class statement

        def get(self):
            return log

    return x + Sized.size + len(Sized().get())


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
