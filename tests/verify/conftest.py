"""One local Spark for the whole verify suite (local[2], tiny shuffles, no UI), stopped at the end."""
import os
import shutil
import tempfile

import pytest


@pytest.fixture(scope="session")
def spark():
    from pyspark.sql import SparkSession
    warehouse = tempfile.mkdtemp(prefix="mm2-verify-spark-")
    session = (SparkSession.builder.master("local[2]").appName("mm2-verify-tests")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "4")
               .config("spark.default.parallelism", "2")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.sql.warehouse.dir", os.path.join(warehouse, "warehouse"))
               .config("spark.driver.extraJavaOptions", "-Djava.io.tmpdir=" + warehouse)
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    try:
        yield session
    finally:
        session.stop()
        shutil.rmtree(warehouse, ignore_errors=True)
