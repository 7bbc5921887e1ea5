"""More programs after CPython's tests as PyTorch's Dynamo suite runs them (test/dynamo/cpython/3.13/test_setcomps,
3_13/test_unittest/test_assertions), for ``capture_count.py --only cpython_user``: set comprehensions (conditions,
nested loops, scoping of the loop variable, closures, walrus, class scope, errors raised inside) and
``unittest.TestCase`` assertions (passing, failing with their messages, ``assertRaises`` as context manager and
callable). Each program does tensor work before and after the construct so that the frame is compiled."""

from __future__ import annotations

import unittest


def c_cu_setcomp_basic(x):
    y = x + 1
    s = {i * i for i in range(5)}
    return y * len(s), sorted(s)


def c_cu_setcomp_condition(x):
    y = x * 2
    s = {i for i in range(10) if i % 3 == 0}
    return y + len(s), sorted(s)


def c_cu_setcomp_nested_loops(x):
    y = x - 1
    s = {(i, j) for i in range(3) for j in range(i)}
    return y * len(s), sorted(s)


def c_cu_setcomp_duplicates_collapse(x):
    y = x.sin()
    s = {c.lower() for c in "aAbBcC"}
    return y + len(s), sorted(s)


def c_cu_setcomp_loop_var_not_leaked(x):
    i = 20
    y = x.cos()
    s = {i for i in range(3)}
    return y + i, sorted(s)


def c_cu_setcomp_closure_captures(x):
    y = x + 2
    items = [lambda: i for i in range(3)]  # noqa: B023
    s = {f() for f in items}
    return y * len(s), sorted(s)


def c_cu_setcomp_uses_outer_variable(x):
    y = x * 3
    base = 10
    s = {base + i for i in range(3)}
    return y + len(s), sorted(s)


def c_cu_setcomp_in_function_default(x):
    def make(n, extra={0}):  # noqa: B006
        return {i for i in range(n)} | extra

    y = x - 2
    s = make(3)
    return y + len(s), sorted(s)


def c_cu_setcomp_nested_setcomp(x):
    y = x.abs()
    s = {frozenset({j for j in range(i)}) for i in range(4)}
    return y * len(s), sorted(len(f) for f in s)


def c_cu_setcomp_tensor_shapes(x):
    ts = [x, x * 2, x[:2]]
    shapes = {tuple(t.shape) for t in ts}
    return x.sum() * len(shapes), sorted(shapes)


def c_cu_setcomp_name_error_inside(x):
    y = x + 1
    try:
        s = {undefined_name_zz for _ in range(2)}
    except NameError:
        return y - 1
    return y, s


def c_cu_setcomp_unhashable_raises(x):
    y = x * 2
    try:
        {[i] for i in range(2)}
    except TypeError:
        return y + 1
    return y


def c_cu_setcomp_walrus_outer_binding(x):
    y = x - 1
    s = {(last := i) for i in range(4)}
    return y + last, sorted(s)


def c_cu_setcomp_from_dict_items(x):
    y = x.exp()
    d = {"a": 1, "b": 2, "c": 1}
    s = {v for _, v in d.items()}
    return y + len(s), sorted(s)


def c_cu_setcomp_tensor_values_sum(x):
    vals = {int(v) for v in [1.0, 2.0, 2.0, 3.0]}
    return x * sum(vals) + len(vals)


def c_cu_setcomp_generator_source(x):
    y = x + 4
    gen = (i % 4 for i in range(10))
    s = {g for g in gen}
    return y + len(s), sorted(s)


def c_cu_setcomp_class_scope(x):
    class K:
        vals = {i * 2 for i in range(3)}

    y = x * 2
    return y + len(K.vals), sorted(K.vals)


def _assertion_message(fn):
    try:
        fn()
    except AssertionError as e:
        return str(e)
    return None


def c_cu_assert_equal_passes(x):
    tc = unittest.TestCase()
    y = x + 1
    tc.assertEqual(1 + 1, 2)
    tc.assertTrue(len([1]) == 1)
    tc.assertFalse(0)
    return y * 2


def c_cu_assert_equal_fails_message(x):
    tc = unittest.TestCase()
    y = x - 1
    msg = _assertion_message(lambda: tc.assertEqual(1, 2))
    return y + 1, msg


def c_cu_assert_true_custom_msg(x):
    tc = unittest.TestCase()
    y = x * 3
    msg = _assertion_message(lambda: tc.assertTrue(False, "oops"))
    return y + len(msg), msg


def c_cu_assert_not_equal_and_is(x):
    tc = unittest.TestCase()
    y = x.sin()
    tc.assertNotEqual(1, 2)
    tc.assertIs(None, None)
    tc.assertIsNot(1, None)
    tc.assertIsNone(None)
    tc.assertIsNotNone(y)
    return y + 1


def c_cu_assert_in_not_in(x):
    tc = unittest.TestCase()
    y = x.cos()
    tc.assertIn(2, [1, 2])
    tc.assertNotIn("z", "abc")
    msg = _assertion_message(lambda: tc.assertIn(5, [1]))
    return y + 1, msg


def c_cu_assert_raises_context(x):
    tc = unittest.TestCase()
    y = x + 2
    with tc.assertRaises(ZeroDivisionError):
        1 / 0  # noqa: B018
    return y * 2


def c_cu_assert_raises_captures_exception(x):
    tc = unittest.TestCase()
    y = x - 2
    with tc.assertRaises(KeyError) as cm:
        {}["k"]
    return y + 1, cm.exception.args


def c_cu_assert_raises_not_raised(x):
    tc = unittest.TestCase()
    y = x * 2
    try:
        with tc.assertRaises(ValueError):
            pass
    except AssertionError as e:
        return y + 1, str(e)
    return y


def c_cu_assert_raises_callable_form(x):
    tc = unittest.TestCase()
    y = x.abs()
    tc.assertRaises(ValueError, int, "abc")
    return y + 1


def c_cu_assert_raises_regex(x):
    tc = unittest.TestCase()
    y = x + 3
    with tc.assertRaisesRegex(ValueError, "bad.*value"):
        raise ValueError("a bad value here")
    return y * 2


def c_cu_assert_almost_equal(x):
    tc = unittest.TestCase()
    y = x - 3
    tc.assertAlmostEqual(1.0, 1.00000001)
    tc.assertNotAlmostEqual(1.0, 1.1)
    msg = _assertion_message(lambda: tc.assertAlmostEqual(1.0, 1.1, places=3))
    return y + 1, msg


def c_cu_assert_greater_less(x):
    tc = unittest.TestCase()
    y = x * 4
    tc.assertGreater(2, 1)
    tc.assertLessEqual(1, 1)
    msg = _assertion_message(lambda: tc.assertLess(3, 2))
    return y + 1, msg


def c_cu_assert_isinstance(x):
    tc = unittest.TestCase()
    y = x + 1
    tc.assertIsInstance(y, type(x))
    tc.assertNotIsInstance(1, str)
    return y * 2


def c_cu_assert_sequence_list_equal(x):
    tc = unittest.TestCase()
    y = x.exp()
    tc.assertListEqual([1, 2], [1, 2])
    tc.assertTupleEqual((1,), (1,))
    tc.assertDictEqual({"a": 1}, {"a": 1})
    tc.assertSetEqual({1, 2}, {2, 1})
    return y - 1


def c_cu_assert_count_equal(x):
    tc = unittest.TestCase()
    y = x + 2
    tc.assertCountEqual([1, 2, 2], [2, 1, 2])
    return y * 3


def c_cu_assert_fail_raises(x):
    tc = unittest.TestCase()
    y = x - 1
    msg = _assertion_message(lambda: tc.fail("boom"))
    return y + 1, msg


def c_cu_assert_tensor_equal_via_true(x):
    tc = unittest.TestCase()
    y = x * 2
    tc.assertTrue(bool((y == x + x).all()))
    return y + 1


def c_cu_assert_failure_exception_attr(x):
    tc = unittest.TestCase()
    y = x + 1
    return y * 2, tc.failureException is AssertionError, tc.longMessage


def c_cu_assert_raises_wrong_type_propagates(x):
    tc = unittest.TestCase()
    y = x.sin()
    try:
        with tc.assertRaises(KeyError):
            raise IndexError("idx")
    except IndexError as e:
        return y + 1, e.args
    return y


CONSTRUCTS = [
    c_cu_setcomp_basic, c_cu_setcomp_condition, c_cu_setcomp_nested_loops, c_cu_setcomp_duplicates_collapse,
    c_cu_setcomp_loop_var_not_leaked, c_cu_setcomp_closure_captures, c_cu_setcomp_uses_outer_variable,
    c_cu_setcomp_in_function_default, c_cu_setcomp_nested_setcomp, c_cu_setcomp_tensor_shapes,
    c_cu_setcomp_name_error_inside, c_cu_setcomp_unhashable_raises, c_cu_setcomp_walrus_outer_binding,
    c_cu_setcomp_from_dict_items, c_cu_setcomp_tensor_values_sum, c_cu_setcomp_generator_source,
    c_cu_setcomp_class_scope, c_cu_assert_equal_passes, c_cu_assert_equal_fails_message, c_cu_assert_true_custom_msg,
    c_cu_assert_not_equal_and_is, c_cu_assert_in_not_in, c_cu_assert_raises_context,
    c_cu_assert_raises_captures_exception, c_cu_assert_raises_not_raised, c_cu_assert_raises_callable_form,
    c_cu_assert_raises_regex, c_cu_assert_almost_equal, c_cu_assert_greater_less, c_cu_assert_isinstance,
    c_cu_assert_sequence_list_equal, c_cu_assert_count_equal, c_cu_assert_fail_raises,
    c_cu_assert_tensor_equal_via_true, c_cu_assert_failure_exception_attr, c_cu_assert_raises_wrong_type_propagates,
]
