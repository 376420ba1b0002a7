"""The machinery behind build.py (the entry point), one module per concern.

Read in this order:
    paths               where things are in a checkout
    problems            Problem ('file:line: message'), BuildError
    sources             JSON/XML readers that keep line numbers; mpack.json's name and version
    core                the checkout's own mm2_core (names, schema), imported from that checkout
    configuration_xml   configuration/<type>.xml generated from the schema (exists only in the tarball)
    released_names      names released versions rely on, and release-history.json (a Checker mixin too)
    layout              assemble(): the directory tree install-mpack unpacks
    ambari_rules        what Ambari accepts (element names, types, sections), read from its sources
    checker             Checker: every check of the assembled layout, one mixin per file kind:
      check_mpack_json, check_metainfo, check_configurations, check_themes, check_kerberos,
      check_role_command_order, check_alerts, check_service_advisor, released_names (above),
      check_theme_coverage (every property on a theme tab or a reason why not)
    compile_check       agent code compiles on Python 2.7 and 3 (3.9 grammar)
    tarball             the reproducible tar.gz and its sha256

Importable on Python 2.7 and 3, like build.py.
"""
