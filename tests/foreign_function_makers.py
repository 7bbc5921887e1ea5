"""Functions that make functions, in a module of their own: what they make reads this module's globals."""


def _secret(t):
    return t * 7


def make_plain():
    return lambda t: _secret(t)


def make_closure(k):
    return lambda t: _secret(t) + k
