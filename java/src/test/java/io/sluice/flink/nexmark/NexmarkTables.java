package io.sluice.flink.nexmark;

import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.RowTypeInfo;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.Collector;

/**
 * Registers the Nexmark tables {@code person}, {@code auction}, {@code bid} (Nexmark's column
 * names and types, {@code dateTime TIMESTAMP(3)} the rowtime with Nexmark's watermark
 * {@code dateTime - INTERVAL '4' SECOND}) and {@code side_input} (q13's 10,000 keys), and q12's
 * {@code bid_p} (bid with a * processing-time column) over a
 * bounded {@link NexmarkGenerator} run of {@code events} events.
 *
 * <p>Each table's source runs at parallelism 1 over the event numbers in order (so event time
 * only grows and no window loses late rows at any query parallelism); a table's source keeps
 * only its own kind of event. The session time zone is UTC so the epoch-millisecond to
 * {@code TIMESTAMP(3)} conversion is the same everywhere.
 */
final class NexmarkTables {
    private NexmarkTables() {}

    private static final String[] PERSON = {"id", "name", "emailAddress", "creditCard", "city", "state", "ts", "extra"};
    private static final String[] AUCTION = {"id", "itemName", "description", "initialBid", "reserve", "ts",
        "expiresTs", "seller", "category", "extra"};
    private static final String[] BID = {"auction", "bidder", "price", "channel", "url", "ts", "extra"};

    static void register(StreamExecutionEnvironment env, StreamTableEnvironment tEnv, NexmarkGenerator gen,
            long events) {
        tEnv.getConfig().getConfiguration().setString("table.local-time-zone", "UTC");
        TypeInformation<?> l = Types.LONG;
        TypeInformation<?> s = Types.STRING;
        table(env, tEnv, "person", gen, events, 0, new RowTypeInfo(new TypeInformation<?>[] {l, s, s, s, s, s, l, s},
                PERSON), "id, name, emailAddress, creditCard, city, state, `dateTime`, extra");
        table(env, tEnv, "auction", gen, events, 1, new RowTypeInfo(new TypeInformation<?>[] {l, s, s, l, l, l, l, l,
            l, s}, AUCTION), "id, itemName, description, initialBid, reserve, `dateTime`, "
                + "CAST(TO_TIMESTAMP_LTZ(expiresTs, 3) AS TIMESTAMP(3)) AS expires, seller, category, extra");
        table(env, tEnv, "bid", gen, events, 2, new RowTypeInfo(new TypeInformation<?>[] {l, l, l, s, s, l, s}, BID),
                "auction, bidder, price, channel, url, `dateTime`, extra");
        tEnv.executeSql("CREATE TEMPORARY VIEW bid_p AS SELECT *, PROCTIME() AS p_time FROM bid");
        DataStream<Row> side = env.fromSequence(0, 9_999).map(k -> Row.of(k, Long.toString(k)))
                .returns(new RowTypeInfo(new TypeInformation<?>[] {l, s}, new String[] {"key", "value"}))
                .setParallelism(1);
        tEnv.createTemporaryView("side_input", tEnv.fromDataStream(side));
    }

    private static void table(StreamExecutionEnvironment env, StreamTableEnvironment tEnv, String name,
            NexmarkGenerator gen, long events, int kind, RowTypeInfo type, String select) {
        DataStream<Row> rows = env.fromSequence(0, events - 1).setParallelism(1)
                .flatMap(new Events(gen, kind)).returns(type).setParallelism(1).name("nexmark-" + name);
        Schema schema = Schema.newBuilder().fromRowDataType(tEnv.fromDataStream(rows).getResolvedSchema()
                .toPhysicalRowDataType())
                .columnByExpression("dateTime", "CAST(TO_TIMESTAMP_LTZ(ts, 3) AS TIMESTAMP(3))")
                .watermark("dateTime", "`dateTime` - INTERVAL '4' SECOND").build();
        tEnv.createTemporaryView(name + "_events", tEnv.fromDataStream(rows, schema));
        tEnv.executeSql("CREATE TEMPORARY VIEW " + name + " AS SELECT " + select + " FROM " + name + "_events");
    }

    /** Keeps the event numbers of one kind and generates their rows. */
    private static final class Events implements FlatMapFunction<Long, Row> {
        private static final long serialVersionUID = 1L;
        private final NexmarkGenerator gen;
        private final int kind;

        Events(NexmarkGenerator gen, int kind) {
            this.gen = gen;
            this.kind = kind;
        }

        @Override
        public void flatMap(Long n, Collector<Row> out) {
            if (NexmarkGenerator.kind(n) != kind) {
                return;
            }
            out.collect(kind == 0 ? gen.person(n) : kind == 1 ? gen.auction(n) : gen.bid(n));
        }
    }
}
