"""Runs a Flink SQL script through PyFlink's Table API, as Flink's SQL client runs it with -f.

    FLINK_HOME=<distribution> python scripts/deploy/run_sql.py scripts/deploy/job.sql

scripts/deploy-test.sh uses it where the SQL client cannot run (Flink 1.20.4: neither the wheel
nor Maven Central serves its opt/flink-sql-gateway jar), so the same unchanged job.sql runs there
too. Like the SQL client, it starts from the Flink configuration file ($FLINK_CONF_DIR/config.yaml,
read by Flink's GlobalConfiguration in the gateway; PyFlink's TableEnvironment.create alone does not
apply it). The script is split into statements at a ';' ending a line; lines starting with '--' are
comments. `SET 'key' = 'value'` sets the table configuration (the SQL client handles SET itself too),
every other statement goes to execute_sql: EXPLAIN prints the plan, INSERT waits for its job when 'table.dml-sync' is 'true'.
"""
import re
import sys

from pyflink.common import Configuration
from pyflink.java_gateway import get_gateway
from pyflink.table import EnvironmentSettings, TableEnvironment

SET = re.compile(r"^SET\s+'([^']+)'\s*=\s*'([^']*)'$", re.IGNORECASE | re.DOTALL)


def statements(text):
    """The script's statements, without comments and the closing ';'."""
    current = []
    for line in text.splitlines():
        if line.strip().startswith("--"):
            continue
        current.append(line)
        if line.rstrip().endswith(";"):
            stmt = "\n".join(current).strip()[:-1].strip()
            current = []
            if stmt:
                yield stmt
    if "\n".join(current).strip():
        raise SystemExit("run_sql.py: the script ends without ';' after its last statement")


def main(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    flink_conf = get_gateway().jvm.org.apache.flink.configuration.GlobalConfiguration.loadConfiguration()
    settings = EnvironmentSettings.new_instance().in_streaming_mode() \
        .with_configuration(Configuration(j_configuration=flink_conf)).build()
    t_env = TableEnvironment.create(settings)
    for stmt in statements(text):
        setting = SET.match(stmt)
        if setting:
            t_env.get_config().set(setting.group(1), setting.group(2))
            continue
        result = t_env.execute_sql(stmt)
        if stmt.upper().startswith("EXPLAIN"):
            result.print()
    print("run_sql.py: all statements ran")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: run_sql.py SCRIPT.sql")
    main(sys.argv[1])
