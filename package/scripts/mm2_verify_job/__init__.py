"""The mm2-verify Spark job (job.py, a single file spark-submit runs) and its Ambari-side planner (plan.py).

Kept under package/scripts so the mpack ships it to the agents; pip installs it as the
`mm2_verify_job` package for the off-cluster `mm2-verify` CLI.  Both modules import on
Python 2.7 and 3 (pyspark is imported lazily, only when the job runs).
"""
