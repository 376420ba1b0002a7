"""Live flow settings (kafka-mm2-live/flow.settings) as an operator meets them off the cluster: `validate`,
`configure --dry-run` and `render` refuse every broken line with the words the agent and the service advisor use
(one validator: mm2_core.connect.live.parse), naming the flow, the setting and the fix, and send nothing."""
import json

from rest_helpers import TOPOLOGY, configure, deploy

from mm2_core.config import names

# (line, what the operator must read): one per kind of mistake the issue lists
BAD_LINES = [
    ("dc1->dc3.topics = x", "no flow dc1->dc3 in this topology (did you mean dc1->dc2?); flows: dc1->dc2. "
                            "Fix the flow name or remove the line"),
    ("dc1->dc2.replication.factor = 2", "replication.factor is not a live flow setting: it cannot change while "
                                        "flow dc1->dc2 runs"),
    ("dc1->dc2.groups = g[", "groups of flow dc1->dc2: 'g[' is not a valid Java regex"),
    ("dc1->dc2.topics = a", None),
    ("dc1->dc2.topics = b", "topics of flow dc1->dc2 is already set on line 4; keep one of the two lines"),
    ("dc1->dc2.tasks.max = four", "tasks.max of flow dc1->dc2: 'four' is not a whole number: tasks.max is a Kafka "
                                  "int; fix the value or remove the line"),
    ("dc1->dc2.sync.group.offsets.interval.seconds = 0x", "sync.group.offsets.interval.seconds of flow dc1->dc2: "
                                                          "'0x' is not a whole number"),
    ("no equals sign", "line 8 (no equals sign): not a setting line; write SOURCE->TARGET.setting = value, e.g. "
                       "dc1->dc2.topics = orders.*"),
]
TASKS_ZERO = ("dc1->dc2.tasks.max = 0", "tasks.max of flow dc1->dc2: 0 is out of range for tasks.max: use at least 1")


def _live_file(tmp_path, lines, run_mode="connect"):
    """The test topology in `run_mode` with `lines` as kafka-mm2-live/flow.settings."""
    with open(TOPOLOGY) as fh:
        text = fh.read()
    text = text.replace("      mm2_heap_opts: -Xms2g -Xmx4g\n",
                        "      mm2_heap_opts: -Xms2g -Xmx4g\n      mm2_run_mode: %s\n" % run_mode)
    block = "\n".join("        " + line for line in lines)
    path = tmp_path / "live.yaml"
    path.write_text(text.rstrip("\n") + "\n    kafka-mm2-live:\n      flow.settings: |\n" + block + "\n")
    return str(path)


def _assert_named(text):
    for line, expected in BAD_LINES:
        if expected:
            assert expected in text, (expected, text)
    assert "('ERROR'" not in text and "Problem(" not in text   # no Python repr reaches the operator


def test_validate_refuses_every_broken_live_line_by_flow_setting_and_fix(cli, tmp_path):
    result = cli("validate", _live_file(tmp_path, [line for line, _ in BAD_LINES]), fast=False)
    assert result.code == 2, result
    _assert_named(result.err)
    assert result.err.count("%s/%s: line " % (names.LIVE, "flow.settings")) == len(BAD_LINES) - 1


def test_validate_refuses_zero_tasks(cli, tmp_path):
    result = cli("validate", _live_file(tmp_path, [TASKS_ZERO[0]]), fast=False)
    assert result.code == 2, result
    assert TASKS_ZERO[1] in result.err


def test_validate_accepts_good_live_lines_and_refuses_them_in_dedicated_mode(cli, tmp_path):
    good = ["# emea only", "dc1->dc2.topics = orders.*", "dc1->dc2.tasks.max = 2"]
    assert cli("validate", _live_file(tmp_path, good), fast=False).code == 0
    result = cli("validate", _live_file(tmp_path, good, run_mode="dedicated"), fast=False)
    assert result.code == 2, result
    assert "live flow settings apply only in connect mode (kafka-mm2-env/mm2_run_mode=connect)" in result.err


def test_configure_dry_run_refuses_broken_live_lines_before_sending(cli, fake, tmp_path):
    assert deploy(cli, fake).code == 0
    before = len(fake.mutating_calls())
    result = configure(cli, fake, _live_file(tmp_path, [line for line, _ in BAD_LINES]), "--dry-run")
    assert result.code == 2, result
    _assert_named(result.err)
    result = configure(cli, fake, _live_file(tmp_path, [line for line, _ in BAD_LINES]))
    assert result.code == 2, result
    assert fake.mutating_calls()[before:] == []


def _render_connect_mode(tmp_path, capsys, live_lines):
    """`mm2-ambari render` of a connect-mode dc1->dc2 with these live lines: (exit code, stdout, stderr, out dir)."""
    from mm2_ambari import cli
    configs = {names.CLUSTERS: {"source.alias": "dc1", "source.bootstrap.servers": "k1.dc1.example.com:9092",
                                "target.alias": "dc2", "target.bootstrap.servers": "k1.dc2.example.com:9092"},
               names.ENV: {"mm2_run_mode": "connect"},
               names.LIVE: {"flow.settings": "\n".join(live_lines)}}
    path = tmp_path / "configs.json"
    path.write_text(json.dumps(configs))
    out = tmp_path / "out"
    code = cli.main(["render", "--configs", str(path), "--kafka-version", "3.7.1", "--out", str(out),
                     "--host", "mm2-1.example.com"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err, out


def test_render_refuses_broken_live_lines_and_writes_nothing(tmp_path, capsys):
    code, _, err, out = _render_connect_mode(tmp_path, capsys, [line for line, _ in BAD_LINES])
    assert code == 2, err
    _assert_named(err)
    assert not out.exists()


def test_render_in_connect_mode_previews_the_worker_and_each_connector(tmp_path, capsys):
    """What a connect-mode driver runs: the worker file and its secrets (render.connect_files, as the agent
    writes them), each connector's configuration with the live settings over it; not the dedicated launcher's
    properties."""
    from mm2_core.connect import connect_mode
    code, printed, err, out = _render_connect_mode(tmp_path, capsys, ["dc1->dc2.tasks.max = 3",
                                                                      "dc1->dc2.topics = orders.*"])
    assert code == 0, err
    assert sorted(p.name for p in out.iterdir()) == sorted([
        connect_mode.WORKER_FILE, connect_mode.SECRETS_FILE, "connectors.json", "mm2-env.sh", "log4j.properties"])
    connectors = json.loads((out / "connectors.json").read_text())
    source = connectors["dc1->dc2.MirrorSourceConnector"]
    assert (source["tasks.max"], source["topics"]) == ("3", "orders.*")   # the live settings, as the agent applies them
    assert "group.id=mm2-connect" in (out / connect_mode.WORKER_FILE).read_text()
    assert "start: connect-distributed.sh /etc/kafka-mm2/conf/connect-distributed.properties, then each connector " \
           "of connectors.json is PUT to http://127.0.0.1:8093/connectors/NAME/config" in printed
