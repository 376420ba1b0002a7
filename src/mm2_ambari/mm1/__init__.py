"""Moving from MirrorMaker 1: `import-mm1` and `seed-from-mm1` (`commands`) on the pure mapping of MirrorMaker 1's
options (`mapping`) and the format of MM2's source positions (`offsets`)."""
