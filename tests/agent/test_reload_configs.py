"""Refresh configs (RECONFIGURE reload_configs, APPLY_LIVE_CHANGES: mm2_setup.reload_configs) decides between nothing
more, a restart and connector changes applied live, from whether MM2 runs, the run mode and the worker file before
and after CONFIGURE. The configuration, the process and the worker's REST API are stand-ins here; the real paths run
in tests/live."""
import importlib
import os

import pytest

from mm2_core.connect import connect_rest


class _Rendering(object):
    connect_plan = "plan"


class _Log(object):
    lines = []

    @classmethod
    def info(cls, text):
        cls.lines.append(text)


@pytest.fixture
def host(tmpdir, monkeypatch):
    # the modules as they are now: the record-mode harness of other tests drops the scripts from sys.modules, and
    # reload_configs imports mm2_connect and mm2_service when it runs
    mm2_setup, mm2_connect, mm2_service = [importlib.import_module(m) for m in ("mm2_setup", "mm2_connect",
                                                                                "mm2_service")]
    worker = os.path.join(str(tmpdir), "connect-distributed.properties")
    state = {"running": True, "connect": True, "writes": b"same", "applied": []}

    def configure(params, basedir):
        with open(worker, "wb") as fh:
            fh.write(state["writes"])
        return _Rendering()

    def apply_connectors(params, plan):
        state["applied"].append(plan)
        if state.get("rest_error"):
            raise connect_rest.ConnectError("connection refused")
        return {"created": [], "updated": ["A->B.MirrorSourceConnector"], "deleted": [], "unchanged": []}

    with open(worker, "wb") as fh:
        fh.write(b"same")
    _Log.lines = []
    monkeypatch.setattr(mm2_setup, "Logger", _Log)
    monkeypatch.setattr(mm2_setup, "configure", configure)
    monkeypatch.setattr(mm2_service, "running", lambda params: state["running"])
    monkeypatch.setattr(mm2_connect, "enabled", lambda params: state["connect"])
    monkeypatch.setattr(mm2_connect, "worker_file", lambda params: worker)
    monkeypatch.setattr(mm2_connect, "apply_connectors", apply_connectors)
    state["setup"] = mm2_setup
    return state


def _reload(host, restarts):
    return host["setup"].reload_configs(None, "/basedir", lambda: restarts.append(1) or "restarted")


def test_not_running_renders_only(host):
    host["running"] = False
    restarts = []
    assert _reload(host, restarts) == {"created": [], "updated": [], "deleted": [], "unchanged": [], "running": False}
    assert restarts == [] and host["applied"] == []


def test_dedicated_mode_restarts(host):
    host["connect"] = False
    restarts = []
    assert _reload(host, restarts) == "restarted" and restarts == [1] and host["applied"] == []
    assert _Log.lines == ["Dedicated mode reads its configuration only at start: restarting MirrorMaker 2"]


def test_a_changed_worker_file_restarts(host):
    host["writes"] = b"changed"
    restarts = []
    assert _reload(host, restarts) == "restarted" and restarts == [1] and host["applied"] == []


def test_connector_changes_go_live(host):
    restarts = []
    result = _reload(host, restarts)
    assert result["updated"] == ["A->B.MirrorSourceConnector"] and restarts == [] and host["applied"] == ["plan"]
    assert _Log.lines == ["Applied without a restart: 0 created, 1 updated, 0 deleted, 0 unchanged"]


def test_a_worker_that_does_not_answer_fails_naming_it(host):
    from resource_management.core.exceptions import Fail
    host["rest_error"] = True
    with pytest.raises(Fail) as info:
        _reload(host, [])
    assert "Cannot apply the connector changes" in str(info.value) and "connection refused" in str(info.value)
