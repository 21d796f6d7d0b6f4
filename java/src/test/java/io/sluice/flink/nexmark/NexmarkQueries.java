package io.sluice.flink.nexmark;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Nexmark q0-q22 (q6 excluded: Flink cannot run it) as the SELECT of Nexmark's
 * {@code nexmark-flink/src/main/resources/queries/qN.sql}, over the tables {@link NexmarkTables}
 * registers. The benchmark writes the result to an in-job digest sink (a blackhole that hashes,
 * {@link NexmarkDigestSinkFactory}), the parity test also collects it. Departures, each
 * the closest standard SQL:
 * <ul>
 *   <li>q10: the SELECT of its filesystem-sink INSERT (the partitioned file sink is not run);</li>
 *   <li>q13: a regular join with the bounded {@code side_input} table instead of a processing-time
 *       lookup join on a file (a filesystem table is not a lookup source);</li>
 *   <li>q14: Nexmark's {@code count_char(extra, 'c')} UDF as
 *       {@code CHAR_LENGTH(extra) - CHAR_LENGTH(REPLACE(extra, 'c', ''))};</li>
 *   <li>q12 reads Nexmark's view {@code B} as {@code bid_p}; it keeps its processing-time window,
 *       so its result depends on the wall clock and is not
 *       compared ({@link #comparable});</li>
 *   <li>q9's interval join reads two sources whose watermarks advance independently, so which
 *       bids arrive after the other side's state was cleaned depends on the interleaving: two
 *       stock runs of 20,000 events gave 3,188 and 3,192 rows. It is not compared either.</li>
 * </ul>
 */
final class NexmarkQueries {
    private NexmarkQueries() {}

    private static final String RANK_BIDS = "count(*) filter (where price < 10000) AS rank1_bids, "
            + "count(*) filter (where price >= 10000 and price < 1000000) AS rank2_bids, "
            + "count(*) filter (where price >= 1000000) AS rank3_bids";

    private static final String DISTINCTS = "count(distinct bidder) AS total_bidders, "
            + "count(distinct bidder) filter (where price < 10000) AS rank1_bidders, "
            + "count(distinct bidder) filter (where price >= 10000 and price < 1000000) AS rank2_bidders, "
            + "count(distinct bidder) filter (where price >= 1000000) AS rank3_bidders, "
            + "count(distinct auction) AS total_auctions, "
            + "count(distinct auction) filter (where price < 10000) AS rank1_auctions, "
            + "count(distinct auction) filter (where price >= 10000 and price < 1000000) AS rank2_auctions, "
            + "count(distinct auction) filter (where price >= 1000000) AS rank3_auctions";

    private static final String HOP_COUNTS = "SELECT auction, count(*) AS num, window_start AS starttime, "
            + "window_end AS endtime FROM TABLE(HOP(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '2' SECOND, "
            + "INTERVAL '10' SECOND)) GROUP BY auction, window_start, window_end";

    private static final String URL_CHANNEL = "REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2)";

    /** Query name to SQL, in Nexmark's order. */
    static final Map<String, String> ALL = new LinkedHashMap<>();

    static {
        ALL.put("q0", "SELECT auction, bidder, price, `dateTime`, extra FROM bid");
        ALL.put("q1", "SELECT auction, bidder, 0.908 * price as price, `dateTime`, extra FROM bid");
        ALL.put("q2", "SELECT auction, price FROM bid WHERE MOD(auction, 123) = 0");
        ALL.put("q3", "SELECT P.name, P.city, P.state, A.id FROM auction AS A INNER JOIN person AS P "
                + "on A.seller = P.id WHERE A.category = 10 and (P.state = 'OR' OR P.state = 'ID' OR P.state = 'CA')");
        ALL.put("q4", "SELECT Q.category, AVG(Q.final) FROM (SELECT MAX(B.price) AS final, A.category "
                + "FROM auction A, bid B WHERE A.id = B.auction AND B.`dateTime` BETWEEN A.`dateTime` AND A.expires "
                + "GROUP BY A.id, A.category) Q GROUP BY Q.category");
        ALL.put("q5", "SELECT AuctionBids.auction, AuctionBids.num FROM (" + HOP_COUNTS + ") AS AuctionBids "
                + "JOIN (SELECT max(CountBids.num) AS maxn, CountBids.starttime, CountBids.endtime FROM ("
                + HOP_COUNTS + ") AS CountBids GROUP BY CountBids.starttime, CountBids.endtime) AS MaxBids "
                + "ON AuctionBids.starttime = MaxBids.starttime AND AuctionBids.endtime = MaxBids.endtime "
                + "AND AuctionBids.num >= MaxBids.maxn");
        ALL.put("q7", "SELECT B.auction, B.price, B.bidder, B.`dateTime`, B.extra from bid B JOIN ("
                + "SELECT MAX(price) AS maxprice, window_end as `dateTime` FROM TABLE(TUMBLE(TABLE bid, "
                + "DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND)) GROUP BY window_start, window_end) B1 "
                + "ON B.price = B1.maxprice WHERE B.`dateTime` BETWEEN B1.`dateTime` - INTERVAL '10' SECOND "
                + "AND B1.`dateTime`");
        ALL.put("q8", "SELECT P.id, P.name, P.starttime FROM (SELECT id, name, window_start AS starttime, "
                + "window_end AS endtime FROM TABLE(TUMBLE(TABLE person, DESCRIPTOR(`dateTime`), "
                + "INTERVAL '10' SECOND)) "
                + "GROUP BY id, name, window_start, window_end) P JOIN (SELECT seller, window_start AS starttime, "
                + "window_end AS endtime FROM TABLE(TUMBLE(TABLE auction, DESCRIPTOR(`dateTime`), "
                + "INTERVAL '10' SECOND)) "
                + "GROUP BY seller, window_start, window_end) A ON P.id = A.seller AND P.starttime = A.starttime "
                + "AND P.endtime = A.endtime");
        ALL.put("q9", "SELECT id, itemName, description, initialBid, reserve, `dateTime`, expires, seller, category, "
                + "extra, auction, bidder, price, bid_dateTime, bid_extra FROM (SELECT A.*, B.auction, B.bidder, "
                + "B.price, B.`dateTime` AS bid_dateTime, B.extra AS bid_extra, ROW_NUMBER() OVER (PARTITION BY A.id "
                + "ORDER BY B.price DESC, B.`dateTime` ASC) AS rownum FROM auction A, bid B WHERE A.id = B.auction "
                + "AND B.`dateTime` BETWEEN A.`dateTime` AND A.expires) WHERE rownum <= 1");
        ALL.put("q10", "SELECT auction, bidder, price, `dateTime`, extra, DATE_FORMAT(`dateTime`, 'yyyy-MM-dd'), "
                + "DATE_FORMAT(`dateTime`, 'HH:mm') FROM bid");
        ALL.put("q11", "SELECT B.bidder, count(*) as bid_count, SESSION_START(B.`dateTime`, INTERVAL '10' SECOND) "
                + "as starttime, SESSION_END(B.`dateTime`, INTERVAL '10' SECOND) as endtime FROM bid B "
                + "GROUP BY B.bidder, SESSION(B.`dateTime`, INTERVAL '10' SECOND)");
        ALL.put("q12", "SELECT bidder, count(*) as bid_count, window_start AS starttime, window_end AS endtime "
                + "FROM TABLE(TUMBLE(TABLE bid_p, DESCRIPTOR(p_time), "
                + "INTERVAL '10' SECOND)) GROUP BY bidder, window_start, window_end");
        ALL.put("q13", "SELECT B.auction, B.bidder, B.price, B.`dateTime`, S.`value` FROM bid B "
                + "JOIN side_input S ON mod(B.auction, 10000) = S.key");
        ALL.put("q14", "SELECT auction, bidder, 0.908 * price as price, CASE WHEN HOUR(`dateTime`) >= 8 AND "
                + "HOUR(`dateTime`) <= 18 THEN 'dayTime' WHEN HOUR(`dateTime`) <= 6 OR HOUR(`dateTime`) >= 20 "
                + "THEN 'nightTime' ELSE 'otherTime' END AS bidTimeType, `dateTime`, extra, "
                + "CHAR_LENGTH(extra) - CHAR_LENGTH(REPLACE(extra, 'c', '')) AS c_counts FROM bid "
                + "WHERE 0.908 * price > 1000000 AND 0.908 * price < 50000000");
        ALL.put("q15", "SELECT DATE_FORMAT(`dateTime`, 'yyyy-MM-dd') as `day`, count(*) AS total_bids, " + RANK_BIDS
                + ", " + DISTINCTS + " FROM bid GROUP BY DATE_FORMAT(`dateTime`, 'yyyy-MM-dd')");
        ALL.put("q16", "SELECT channel, DATE_FORMAT(`dateTime`, 'yyyy-MM-dd') as `day`, "
                + "max(DATE_FORMAT(`dateTime`, 'HH:mm')) as `minute`, count(*) AS total_bids, " + RANK_BIDS + ", "
                + DISTINCTS + " FROM bid GROUP BY channel, DATE_FORMAT(`dateTime`, 'yyyy-MM-dd')");
        ALL.put("q17", "SELECT auction, DATE_FORMAT(`dateTime`, 'yyyy-MM-dd') as `day`, count(*) AS total_bids, "
                + RANK_BIDS + ", min(price) AS min_price, max(price) AS max_price, avg(price) AS avg_price, "
                + "sum(price) AS sum_price FROM bid GROUP BY auction, DATE_FORMAT(`dateTime`, 'yyyy-MM-dd')");
        ALL.put("q18", "SELECT auction, bidder, price, channel, url, `dateTime`, extra FROM (SELECT *, ROW_NUMBER() "
                + "OVER (PARTITION BY bidder, auction ORDER BY `dateTime` DESC) AS rank_number FROM bid) "
                + "WHERE rank_number <= 1");
        ALL.put("q19", "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) "
                + "AS rank_number FROM bid) WHERE rank_number <= 10");
        ALL.put("q20", "SELECT auction, bidder, price, channel, url, B.`dateTime`, B.extra, itemName, description, "
                + "initialBid, reserve, A.`dateTime`, expires, seller, category, A.extra FROM bid AS B "
                + "INNER JOIN auction AS A on B.auction = A.id WHERE A.category = 10");
        ALL.put("q21", "SELECT auction, bidder, price, channel, CASE WHEN lower(channel) = 'apple' THEN '0' "
                + "WHEN lower(channel) = 'google' THEN '1' WHEN lower(channel) = 'facebook' THEN '2' "
                + "WHEN lower(channel) = 'baidu' THEN '3' ELSE " + URL_CHANNEL + " END AS channel_id FROM bid "
                + "WHERE " + URL_CHANNEL + " is not null or lower(channel) in "
                + "('apple', 'google', 'facebook', 'baidu')");
        ALL.put("q22", "SELECT auction, bidder, price, channel, SPLIT_INDEX(url, '/', 3) as dir1, "
                + "SPLIT_INDEX(url, '/', 4) as dir2, SPLIT_INDEX(url, '/', 5) as dir3 FROM bid");
    }

    /** Whether a query's result is a function of its input (q12's processing time and q9's join order are not). */
    static boolean comparable(String name) {
        return !name.equals("q12") && !name.equals("q9");
    }
}
