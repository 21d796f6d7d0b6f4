-- An unchanged Flink SQL script (nothing in it names sluice): scripts/deploy-test.sh runs it
-- through the SQL client of a Flink distribution whose lib/ holds sluice's jars.
CREATE TABLE users (
    id BIGINT,
    name STRING,
    city STRING
) WITH (
    'connector' = 'datagen',
    'number-of-rows' = '200000',
    'fields.id.kind' = 'sequence',
    'fields.id.start' = '1',
    'fields.id.end' = '200000',
    'fields.name.length' = '12',
    'fields.city.length' = '1'
);

CREATE TABLE hashed (id BIGINT, h STRING) WITH ('connector' = 'blackhole');
CREATE TABLE per_city (city STRING, n BIGINT, total BIGINT, longest STRING) WITH ('connector' = 'blackhole');

EXPLAIN INSERT INTO hashed SELECT id, MD5(name) FROM users;
EXPLAIN INSERT INTO per_city SELECT city, COUNT(*), SUM(id), MAX(name) FROM users GROUP BY city;

SET 'table.dml-sync' = 'true';
SET 'pipeline.name' = 'deploy-calc';
INSERT INTO hashed SELECT id, MD5(name) FROM users;
SET 'pipeline.name' = 'deploy-group-by';
INSERT INTO per_city SELECT city, COUNT(*), SUM(id), MAX(name) FROM users GROUP BY city;
