"""test_funcattrs' ideas: function attributes read and written on functions made in the frame and outside it
(``__code__``, ``__closure__`` and its cells, ``__name__``/``__qualname__``/``__doc__``/``__dict__``,
``__defaults__`` deleted), method attributes, ``types.MethodType`` over a builtin, cells made with
``types.CellType`` and compared; for ``capture_count.py --only descr14``. Written afresh over one tensor.
"""

from __future__ import annotations

import types


class _F:
    def a(self):
        pass


def _b():
    return 3


def _cannot_set(obj, name, value):
    errors = []
    for act in (lambda: setattr(obj, name, value), lambda: delattr(obj, name)):
        try:
            act()
            errors.append(None)
        except (AttributeError, TypeError) as e:
            errors.append(type(e).__name__)
    return errors


def _cell(value):
    def f():
        return a
    a = value
    return f.__closure__[0]


def _empty_cell():
    def f():
        return a
    if False:
        a = 1
    return f.__closure__[0]


def c_descr14f_copying_code_between_local_functions(x):
    def test():
        pass

    before = test()
    test.__code__ = _b.__code__
    return x + test(), before


def c_descr14f_code_swap_needs_matching_free_vars(x):
    one, two = 7, 8

    def b():
        return 12

    def c():
        return one

    def d():
        return two

    d.__code__ = c.__code__
    try:
        b.__code__ = c.__code__
        refused = False
    except ValueError:
        refused = True
    return x + c(), c.__code__ == d.__code__, refused


def c_descr14f_closure_tuple_and_cells(x):
    a = 12

    def f():
        return a

    c = f.__closure__
    return x + f(), isinstance(c, tuple), len(c), c[0].__class__.__name__, _cannot_set(f, "__closure__", c)


def c_descr14f_cell_type_made_directly(x):
    full, empty = types.CellType(1), types.CellType()
    try:
        _ = empty.cell_contents
        read = True
    except ValueError:
        read = False
    return x + full.cell_contents, read


def c_descr14f_empty_cell_of_later_local(x):
    def f():
        return a

    try:
        _ = f.__closure__[0].cell_contents
        read = True
    except ValueError:
        read = False
    a = 12
    return x + f(), read


def c_descr14f_cell_contents_written_and_deleted(x):
    a = 12

    def f():
        return a

    c = f.__closure__
    c[0].cell_contents = 9
    first = (c[0].cell_contents, f(), a)
    del c[0].cell_contents
    try:
        f()
        named = True
    except NameError:
        named = False
    return x + first[1], first, named


def c_descr14f_name_writes_and_type_checks(x):
    def b():
        return 3

    b.__name__ = "c"
    b.__name__ = "d"
    b.__qualname__ = "Q.d"
    return x + b(), b.__name__, b.__qualname__, _cannot_set(b, "__name__", 7), _cannot_set(b, "__qualname__", 7)


def c_descr14f_method_name_not_settable(x):
    fi = _F()
    return x + 1, fi.a.__name__, _cannot_set(fi.a, "__name__", "a"), _cannot_set(fi.a, "__func__", _F.a)


def c_descr14f_qualnames_of_nested(x):
    def outer():
        def inner():
            pass
        return inner

    return x + 1, outer.__qualname__.split(".")[-1], outer().__qualname__.endswith("outer.<locals>.inner"), \
        _b.__qualname__, _F.a.__qualname__


def c_descr14f_defaults_deleted(x):
    def first(a, b):
        return a + b

    def second(a=1, b=2):
        return a + b

    first.__defaults__ = (1, 2)
    got = (first(), first(3), first(3, 5))
    del second.__defaults__
    try:
        second()
        called = True
    except TypeError:
        called = False
    return x + got[0], got, second.__defaults__, called


def c_descr14f_blank_defaults_deleted(x):
    def b():
        return 3

    del b.__defaults__
    return x + b(), b.__defaults__


def c_descr14f_method_self_func_class(x):
    fi = _F()
    return (x + 1, fi.a.__self__.__class__ is _F, fi.a.__func__ is _F.a, fi.a.__self__ is fi,
            _cannot_set(fi.a, "__self__", fi), _cannot_set(fi.a, "__class__", _F))


def c_descr14f_method_type_over_builtin(x):
    bound = types.MethodType(len, [1, 2, 3])
    try:
        _ = bound.unknown_attr
        found = True
    except AttributeError:
        found = False
    return x + bound(), found, _cannot_set(bound, "unknown_attr", 2)


def c_descr14f_arbitrary_function_attributes(x):
    def b():
        return 3

    b.known_attr = 7
    fi = _F()
    errors = _cannot_set(fi.a, "known_attr", 7)
    try:
        del b.unknown_attr
        deleted = True
    except AttributeError:
        deleted = False
    return x + b.known_attr, errors, deleted, "known_attr" in dir(b)


def c_descr14f_function_dict_replaced(x):
    def b():
        return 3

    d = {"known_attr": 7}
    b.__dict__ = d
    errors = _cannot_set(b, "__dict__", None)
    return x + b.known_attr, b.__dict__ is d, b.__dict__["known_attr"], errors


def c_descr14f_function_docstring_set_and_deleted(x):
    def b():
        return 3

    before = b.__doc__
    b.__doc__ = "The docstring"
    mid = b.__doc__
    del b.__doc__
    return x + b(), before, mid, b.__doc__


def c_descr14f_function_as_dict_key(x):
    def b():
        return 3

    d = {b: "value", _b: "global"}
    return x + len(d), d[b], d[_b], b != _b


def c_descr14f_cell_comparisons(x):
    return (x + 1, _cell(2) < _cell(3), _empty_cell() < _cell("saturday"), _empty_cell() == _empty_cell(),
            _cell(-36) == _cell(-36.0), _cell(True) > _empty_cell())


def c_descr14f_static_and_class_method_func(x):
    def f():
        pass

    return x + 1, classmethod(f).__func__ is f, staticmethod(f).__func__ is f


def c_descr14f_globals_and_builtins_of_functions(x):
    return x + 1, _b.__globals__ is globals(), isinstance(_b.__builtins__, dict), _cannot_set(_b, "__globals__", 2)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
