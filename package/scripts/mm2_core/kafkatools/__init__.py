"""The Kafka boundary: every command line of Kafka's own tools the product builds (`commands`), every parser of
what those tools print (`output`) and of MM2's and Connect's internal topics' records (`records`). Pure stdlib,
Python 2.7 and 3; nothing here runs a process or opens a socket. Callers import the modules, not their names
(alert reloads drop mm2_core modules)."""
