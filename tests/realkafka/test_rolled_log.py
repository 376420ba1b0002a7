"""The harness reads a broker's log across its hourly roll (no Kafka needed: the files are written here).

A start at hh:59 writes "Kafka Server started" into server.log, which log4j renames to server.log.<date>-hh at
hh:00; a check that reads server.log alone then misses it (CI failed that way on 4.0.2 at 23:00)."""
import os
import time

from realkafka import cluster as rk


def _broker(tmp_path):
    b = rk.KafkaCluster.__new__(rk.KafkaCluster)   # no Kafka home needed: only the log reader is used
    b.log_dir = str(tmp_path)
    return b


def test_log_text_includes_the_rolled_files_oldest_first(tmp_path):
    (tmp_path / "server.log.2026-11-26-21").write_text("one\n")
    (tmp_path / "server.log.2026-11-26-22").write_text("two Kafka version: 4.0.2\n")
    (tmp_path / "server.log").write_text("three\n")
    (tmp_path / "controller.log").write_text("not the server's\n")
    assert _broker(tmp_path).server_log_text() == "one\ntwo Kafka version: 4.0.2\nthree\n"


def test_a_start_mark_follows_its_file_through_the_roll(tmp_path):
    log = tmp_path / "server.log"
    old = tmp_path / "server.log.2026-11-26-20"
    old.write_text("Kafka Server started (an earlier start)\n")
    past = time.time() - 7200
    os.utime(str(old), (past, past))
    log.write_text("previous start's lines, Kafka Server started\n")
    b = _broker(tmp_path)
    mark = b._server_log_mark()
    assert "started" not in b.server_log_text(since_mark=mark)
    with open(str(log), "a") as fh:
        fh.write("this start: Kafka Server started\n")
    os.rename(str(log), str(tmp_path / "server.log.2026-11-26-22"))     # the hourly roll
    log.write_text("after the roll\n")
    assert b.server_log_text(since_mark=mark) == "this start: Kafka Server started\nafter the roll\n"
