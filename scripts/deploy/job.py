"""An unchanged PyFlink Table API program (nothing in it names sluice's classes).

scripts/deploy-test.sh runs it with FLINK_HOME pointing at a Flink distribution whose lib/ holds
sluice's jars, and checks its output: the plan of a Calc and a GROUP BY, then both jobs run.
"""
from pyflink.table import EnvironmentSettings, TableEnvironment

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.execute_sql("""
    CREATE TABLE users (id BIGINT, name STRING, city STRING) WITH (
        'connector' = 'datagen', 'number-of-rows' = '100000',
        'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '100000',
        'fields.name.length' = '12', 'fields.city.length' = '1')""")
t_env.execute_sql("CREATE TABLE hashed (id BIGINT, h STRING) WITH ('connector' = 'blackhole')")
t_env.execute_sql(
    "CREATE TABLE per_city (city STRING, n BIGINT, total BIGINT) WITH ('connector' = 'blackhole')")

hashed = t_env.sql_query("SELECT id, MD5(name) AS h FROM users")
per_city = t_env.sql_query("SELECT city, COUNT(*) AS n, SUM(id) AS total FROM users GROUP BY city")
print(hashed.explain())
print(per_city.explain())
hashed.execute_insert("hashed").wait()
per_city.execute_insert("per_city").wait()
print("job.py: both jobs finished")
