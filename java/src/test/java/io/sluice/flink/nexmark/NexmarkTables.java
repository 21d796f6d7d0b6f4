package io.sluice.flink.nexmark;

import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

/**
 * Registers, by DDL over the {@code sluice-nexmark} source ({@link NexmarkSourceFactory}), the
 * Nexmark tables {@code person}, {@code auction}, {@code bid} (Nexmark's column names and types,
 * {@code dateTime TIMESTAMP(3)} the rowtime with Nexmark's watermark
 * {@code dateTime - INTERVAL '4' SECOND}, {@code auction.expires TIMESTAMP(3)}) and
 * {@code side_input} (q13's 10,000 keys), and q12's view {@code bid_p} (bid with a
 * processing-time column), over a bounded {@link NexmarkGenerator} run of {@code events} events.
 *
 * <p>The sources emit {@code RowData} directly, as Nexmark's own table source does: no
 * {@code fromDataStream} of external {@code Row}s and no computed column, whose conversion and
 * Calc were fixed costs on both sides of the comparison. Each table's source runs at parallelism
 * 1 over the event numbers in order (so event time only grows and no window loses late rows at
 * any query parallelism); a table's source keeps only its own kind of event. The session time
 * zone is UTC, as before the switch to RowData; {@code TIMESTAMP(3)} holds the UTC wall clock of
 * the event's epoch milliseconds.
 */
final class NexmarkTables {
    private NexmarkTables() {}

    private static final String PERSON = "id BIGINT, name STRING, emailAddress STRING, creditCard STRING, "
            + "city STRING, state STRING, `dateTime` TIMESTAMP(3), extra STRING";
    private static final String AUCTION = "id BIGINT, itemName STRING, description STRING, initialBid BIGINT, "
            + "reserve BIGINT, `dateTime` TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT, "
            + "extra STRING";
    private static final String BID = "auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, "
            + "`dateTime` TIMESTAMP(3), extra STRING";

    /**
     * @param seed the generator's seed
     * @param rate the event-time rate, events/s
     * @param run the run id the sources record their first event under
     *     ({@link NexmarkSourceFactory#firstEventNanos})
     */
    static void register(StreamTableEnvironment tEnv, long seed, long rate, long events, String run) {
        tEnv.getConfig().getConfiguration().setString("table.local-time-zone", "UTC");
        String with = "'connector' = '" + NexmarkSourceFactory.IDENTIFIER + "', 'events' = '" + events
                + "', 'seed' = '" + seed + "', 'rate' = '" + rate + "', 'run' = '" + run + "'";
        String watermark = ", WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND";
        table(tEnv, "person", PERSON + watermark, with);
        table(tEnv, "auction", AUCTION + watermark, with);
        table(tEnv, "bid", BID + watermark, with);
        table(tEnv, "side_input", "`key` BIGINT, `value` STRING", with);
        tEnv.executeSql("CREATE TEMPORARY VIEW bid_p AS SELECT *, PROCTIME() AS p_time FROM bid");
    }

    private static void table(StreamTableEnvironment tEnv, String name, String columns, String with) {
        tEnv.executeSql("CREATE TEMPORARY TABLE " + name + " (" + columns + ") WITH (" + with + ", 'kind' = '" + name
                + "')");
    }
}
