"""The rewritten code can rebuild a value reached through every kind of guard source."""


def test_every_guard_source_kind_has_a_loader():
    """A value reached through any loom_guards source may have to be rebuilt by the rewritten code (a resume
    function's argument): a kind with no loader failed as an internal error (``DictValueAt``, a dict's value
    under a class key, read again after a print)."""
    import inspect

    import loom_guards
    from loom_guards.sources import Source
    from loom_symbolic.codegen import SOURCE_LOADERS

    kinds = {name for name, obj in vars(loom_guards).items()
             if inspect.isclass(obj) and issubclass(obj, Source) and obj is not Source}
    assert kinds - set(SOURCE_LOADERS) == set()
