"""The opcode handlers: the table is :mod:`.registry`, filled when :mod:`.dispatch` is imported."""
