"""Ctrl-C during mm2-verify: one line saying what was interrupted, exit 130, no py4j stack trace and no half-written
report. Spark is replaced by a stand-in whose call is interrupted the way a real one is: pyspark's SIGINT handler
cancels the jobs and raises KeyboardInterrupt, which py4j may turn into a failed call."""
import io
import os
import signal

from mm2_verify_job import job


class _Session(object):
    stopped = False

    def stop(self):
        _Session.stopped = True
        raise RuntimeError("An error occurred while calling o40.stop")   # the gateway is half gone


def _argv(tmp_path):
    return ["--flow", "A->B", "--source-dump", str(tmp_path), "--target-dump", str(tmp_path),
            "--report", str(tmp_path / "report.json"), "--summary", str(tmp_path / "summary.txt")]


def _interrupted_call(converted):
    def verify_flow(spark, spec):
        try:
            os.kill(os.getpid(), signal.SIGINT)   # the operator's Ctrl-C: Python runs the handler right after
        except KeyboardInterrupt:
            if converted:   # py4j's answer to the cancelled call
                raise RuntimeError("An error occurred while calling o32.read")
            raise
        raise AssertionError("SIGINT was not delivered")
    return verify_flow


def test_ctrl_c_during_the_comparison_is_one_line_and_exit_130(tmp_path, monkeypatch, capsys):
    before = signal.getsignal(signal.SIGINT)
    for converted in (False, True):
        _Session.stopped = False
        monkeypatch.setattr(job, "build_session", lambda *a: _Session())
        monkeypatch.setattr(job, "verify_flow", _interrupted_call(converted))
        code, report = job.run(_argv(tmp_path), out=io.StringIO())
        err = capsys.readouterr().err
        assert (code, report) == (130, None), err
        assert err == ("mm2-verify: interrupted: the verification of A->B was stopped and its Spark jobs cancelled; "
                       "no report was written\n")
        assert _Session.stopped and signal.getsignal(signal.SIGINT) is before
        assert sorted(os.listdir(str(tmp_path))) == []   # no report, no summary, no temporary file


def test_outputs_are_written_whole(tmp_path):
    path = str(tmp_path / "r.json")
    job._write_whole(path, "{}\n")
    assert open(path).read() == "{}\n" and os.listdir(str(tmp_path)) == ["r.json"]


def test_ctrl_c_before_spark_starts_is_one_line_too(monkeypatch, capsys):
    from mm2_verify import cli

    def interrupted(*args):
        raise KeyboardInterrupt()
    monkeypatch.setattr(cli.preflight, "check_runtime", interrupted)
    code = cli.main(["--flow", "A->B", "--source-bootstrap", "a:9092", "--target-bootstrap", "b:9092"])
    assert code == 130
    assert capsys.readouterr().err == "mm2-verify: interrupted before the verification started; nothing was written\n"
