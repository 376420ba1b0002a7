"""File formats and syntaxes read or written exactly: Java properties, the YAML subset, Java regexes, keystores, text at the agent's boundaries."""
