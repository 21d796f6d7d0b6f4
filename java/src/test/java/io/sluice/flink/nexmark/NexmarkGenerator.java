package io.sluice.flink.nexmark;

import java.io.Serializable;
import java.util.SplittableRandom;

import org.apache.flink.types.Row;

/**
 * A deterministic Nexmark event generator, written from Nexmark's published model (nexmark/nexmark,
 * {@code nexmark-flink/.../generator/GeneratorConfig}, {@code model/PersonGenerator},
 * {@code AuctionGenerator}, {@code BidGenerator}, {@code StringsGenerator}, {@code PriceGenerator}).
 *
 * <p>Event {@code n} is a person, an auction or a bid by its offset in an epoch of 50 events
 * (proportions 1 : 3 : 46); ids, hot sellers / bidders / auctions (ratios 4, 4, 2 over batches of
 * 100), prices ({@code round(10^(6u) * 100)}), five categories from 10, auction lengths, the
 * string and "extra" padding sizes (person 200, auction 500, bid 100 bytes on average) follow
 * Nexmark. Event time is {@code baseTime + n * 10^6 / rate} microseconds, in order. Two departures,
 * both for determinism: each event draws from its own {@code SplittableRandom(seed ^ mix(n))}
 * (Nexmark shares one unseeded generator), and the bid channel/url cache is built from the seed;
 * Nexmark's bid generator adds {@code FIRST_PERSON_ID} to the bidder twice, this one once (so
 * bidders are person ids, which is the model's intent).
 */
final class NexmarkGenerator implements Serializable {
    private static final long serialVersionUID = 1L;

    static final int PERSON_PROPORTION = 1;
    static final int AUCTION_PROPORTION = 3;
    static final int TOTAL_PROPORTION = 50;
    static final long FIRST_PERSON_ID = 1000;
    static final long FIRST_AUCTION_ID = 1000;
    static final long FIRST_CATEGORY_ID = 10;
    private static final int NUM_CATEGORIES = 5;
    private static final int HOT_RATIO_BATCH = 100;
    private static final int HOT_AUCTION_RATIO = 2;
    private static final int HOT_SELLERS_RATIO = 4;
    private static final int HOT_BIDDERS_RATIO = 4;
    private static final int NUM_ACTIVE_PEOPLE = 1000;
    private static final int NUM_IN_FLIGHT_AUCTIONS = 100;
    private static final int PERSON_ID_LEAD = 10;
    private static final int AUCTION_ID_LEAD = 10;
    private static final int CHANNELS = 10_000;
    private static final String[] HOT_CHANNELS = {"Google", "Facebook", "Baidu", "Apple"};
    private static final String[] FIRST_NAMES = {"Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie",
        "Sarah", "Deiter", "Walter"};
    private static final String[] LAST_NAMES = {"Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith",
        "Jones", "Noris"};
    private static final String[] US_STATES = {"AZ", "CA", "ID", "OR", "WA", "WY"};
    private static final String[] US_CITIES = {"Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland", "Bend",
        "Redmond", "Seattle", "Kent", "Cheyenne"};

    /** 2015-07-15T00:00:00Z, Nexmark's customary base time, fixed so runs repeat. */
    static final long BASE_TIME_MS = 1_436_918_400_000L;

    private final long seed;
    private final long eventsPerSecond;
    private final double interEventDelayUs;
    private transient String[] hotUrls;
    private transient String[] channelUrls;

    /**
     * @param seed the seed of every draw
     * @param eventsPerSecond the event-time rate (Nexmark's {@code first-event.rate})
     */
    NexmarkGenerator(long seed, long eventsPerSecond) {
        this.seed = seed;
        this.eventsPerSecond = eventsPerSecond;
        this.interEventDelayUs = 1_000_000.0 / eventsPerSecond;
    }

    /** The seed of every draw. */
    long seed() {
        return seed;
    }

    /** The event-time rate, events/s. */
    long rate() {
        return eventsPerSecond;
    }

    /** The kind of event {@code n}: 0 person, 1 auction, 2 bid. */
    static int kind(long n) {
        long offset = n % TOTAL_PROPORTION;
        return offset < PERSON_PROPORTION ? 0 : offset < PERSON_PROPORTION + AUCTION_PROPORTION ? 1 : 2;
    }

    /** Event time of event {@code n} in epoch milliseconds. */
    long timestamp(long n) {
        return BASE_TIME_MS + (long) (n * interEventDelayUs) / 1000;
    }

    private SplittableRandom random(long n) {
        long z = n * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        return new SplittableRandom(seed ^ z ^ (z >>> 31));
    }

    static long lastBase0PersonId(long n) {
        long epoch = n / TOTAL_PROPORTION;
        long offset = Math.min(n % TOTAL_PROPORTION, PERSON_PROPORTION - 1);
        return epoch * PERSON_PROPORTION + offset;
    }

    static long lastBase0AuctionId(long n) {
        long epoch = n / TOTAL_PROPORTION;
        long offset = n % TOTAL_PROPORTION;
        if (offset < PERSON_PROPORTION) {
            epoch--;
            offset = AUCTION_PROPORTION - 1;
        } else if (offset >= PERSON_PROPORTION + AUCTION_PROPORTION) {
            offset = AUCTION_PROPORTION - 1;
        } else {
            offset -= PERSON_PROPORTION;
        }
        return epoch * AUCTION_PROPORTION + offset;
    }

    private static long nextBase0PersonId(long n, SplittableRandom r) {
        long numPeople = lastBase0PersonId(n) + 1;
        long active = Math.min(numPeople, NUM_ACTIVE_PEOPLE);
        return numPeople - active + r.nextLong(active + PERSON_ID_LEAD);
    }

    private static long nextBase0AuctionId(long n, SplittableRandom r) {
        long max = lastBase0AuctionId(n);
        long min = Math.max(max - NUM_IN_FLIGHT_AUCTIONS, 0);
        return min + r.nextLong(max - min + 1 + AUCTION_ID_LEAD);
    }

    private static long nextPrice(SplittableRandom r) {
        return Math.round(Math.pow(10.0, r.nextDouble() * 6.0) * 100.0);
    }

    /** Nexmark's {@code nextString}: 3 to {@code max - 1} letters, one in 13 the {@code special} char. */
    private static String nextString(SplittableRandom r, int max, char special) {
        int len = 3 + r.nextInt(max - 3);
        StringBuilder sb = new StringBuilder(len);
        for (int i = 0; i < len; i++) {
            sb.append(r.nextInt(13) == 0 ? special : (char) ('a' + r.nextInt(26)));
        }
        return sb.toString();
    }

    private static String nextExactString(SplittableRandom r, int len) {
        StringBuilder sb = new StringBuilder(len);
        for (int i = 0; i < len; i++) {
            sb.append((char) ('a' + r.nextInt(26)));
        }
        return sb.toString();
    }

    /** Nexmark's {@code nextExtra}: padding so the event averages {@code avg} bytes, +/- 20 %. */
    private static String nextExtra(SplittableRandom r, int currentSize, int avg) {
        if (currentSize > avg) {
            return "";
        }
        int desired = avg - currentSize;
        int delta = (int) Math.round(desired * 0.2);
        int size = desired - delta + (delta == 0 ? 0 : r.nextInt(2 * delta));
        return nextExactString(r, size);
    }

    /** A person row: id, name, emailAddress, creditCard, city, state, ts (epoch ms), extra. */
    Row person(long n) {
        SplittableRandom r = random(n);
        long id = lastBase0PersonId(n) + FIRST_PERSON_ID;
        String name = FIRST_NAMES[r.nextInt(FIRST_NAMES.length)] + " " + LAST_NAMES[r.nextInt(LAST_NAMES.length)];
        String email = nextString(r, 7, ' ') + "@" + nextString(r, 5, ' ') + ".com";
        String card = String.format("%04d %04d %04d %04d", r.nextInt(10000), r.nextInt(10000), r.nextInt(10000),
                r.nextInt(10000));
        String city = US_CITIES[r.nextInt(US_CITIES.length)];
        String state = US_STATES[r.nextInt(US_STATES.length)];
        int size = 8 + name.length() + email.length() + card.length() + city.length() + state.length();
        return Row.of(id, name, email, card, city, state, timestamp(n), nextExtra(r, size, 200));
    }

    /** An auction row: id, itemName, description, initialBid, reserve, ts, expiresTs, seller, category, extra. */
    Row auction(long n) {
        SplittableRandom r = random(n);
        long id = lastBase0AuctionId(n) + FIRST_AUCTION_ID;
        long seller = r.nextInt(HOT_SELLERS_RATIO) > 0
                ? (lastBase0PersonId(n) / HOT_RATIO_BATCH) * HOT_RATIO_BATCH
                : nextBase0PersonId(n, r);
        long category = FIRST_CATEGORY_ID + r.nextInt(NUM_CATEGORIES);
        long initialBid = nextPrice(r);
        long ts = timestamp(n);
        long eventsForAuctions = (long) NUM_IN_FLIGHT_AUCTIONS * TOTAL_PROPORTION / AUCTION_PROPORTION;
        long horizonMs = timestamp(n + eventsForAuctions) - ts;
        long expires = ts + 1 + r.nextLong(Math.max(horizonMs * 2, 1));
        String item = nextString(r, 20, ' ');
        String desc = nextString(r, 100, ' ');
        long reserve = initialBid + nextPrice(r);
        int size = 8 + item.length() + desc.length() + 40;
        return Row.of(id, item, desc, initialBid, reserve, ts, expires, seller + FIRST_PERSON_ID, category,
                nextExtra(r, size, 500));
    }

    /** A bid row: auction, bidder, price, channel, url, ts, extra. */
    Row bid(long n) {
        String[] hot = urls();
        SplittableRandom r = random(n);
        long auction = r.nextInt(HOT_AUCTION_RATIO) > 0
                ? (lastBase0AuctionId(n) / HOT_RATIO_BATCH) * HOT_RATIO_BATCH
                : nextBase0AuctionId(n, r);
        long bidder = r.nextInt(HOT_BIDDERS_RATIO) > 0
                ? (lastBase0PersonId(n) / HOT_RATIO_BATCH) * HOT_RATIO_BATCH + 1
                : nextBase0PersonId(n, r);
        long price = nextPrice(r);
        String channel;
        String url;
        if (r.nextInt(2) > 0) {
            int i = r.nextInt(HOT_CHANNELS.length);
            channel = HOT_CHANNELS[i];
            url = hot[i];
        } else {
            int c = r.nextInt(CHANNELS);
            channel = "channel-" + c;
            url = channelUrls[c];
        }
        return Row.of(auction + FIRST_AUCTION_ID, bidder + FIRST_PERSON_ID, price, channel, url, timestamp(n),
                nextExtra(r, 32, 100));
    }

    /** The four hot urls, then (in {@code channelUrls}) one per channel, 9 in 10 with a channel_id. */
    private String[] urls() {
        if (hotUrls == null) {
            SplittableRandom r = new SplittableRandom(seed);
            String[] hot = new String[HOT_CHANNELS.length];
            for (int i = 0; i < hot.length; i++) {
                hot[i] = baseUrl(r);
            }
            String[] ch = new String[CHANNELS];
            for (int i = 0; i < CHANNELS; i++) {
                String u = baseUrl(r);
                ch[i] = r.nextInt(10) > 0 ? u + "&channel_id=" + Math.abs(Integer.reverse(i)) : u;
            }
            channelUrls = ch;
            hotUrls = hot;
        }
        return hotUrls;
    }

    private static String baseUrl(SplittableRandom r) {
        return "https://www.nexmark.com/" + nextString(r, 5, '_') + '/' + nextString(r, 5, '_') + '/'
                + nextString(r, 5, '_') + "/item.htm?query=1";
    }
}
