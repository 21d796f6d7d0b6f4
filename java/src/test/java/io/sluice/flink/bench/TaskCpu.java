package io.sluice.flink.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code -Dsluice.bench.task-cpu=true}: the CPU time of each Flink task thread of a job, in
 * nanoseconds per input row. On two cores a job whose source and keyed operator run in two
 * threads is as fast as its busier thread, so this shows which side bounds a bench and what a
 * change saves in it, also on a loaded machine (where wall-clock ratios are noise). A daemon
 * thread polls every task thread's CPU time every 20 ms while the job runs (a task thread ends
 * with its task, so its last polled value is what is printed: up to 20 ms short).
 */
final class TaskCpu {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final Map<String, Long> cpu = new TreeMap<>();
    private final Thread poller;
    private volatile boolean stop;

    private TaskCpu() {
        poller = new Thread(this::poll, "task-cpu");
        poller.setDaemon(true);
        poller.start();
    }

    /** @return a running poller if {@code sluice.bench.task-cpu} is set, else null */
    static TaskCpu startIfAsked() {
        return Boolean.getBoolean("sluice.bench.task-cpu") ? new TaskCpu() : null;
    }

    private void poll() {
        while (!stop) {
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                String name = t.getName();
                if (name.contains("(1/1)") || name.startsWith("Source:")) {
                    long ns = THREADS.getThreadCpuTime(t.getId());
                    if (ns > 0) {
                        synchronized (cpu) {
                            cpu.merge(name.replaceAll("\\[\\d+\\]", "").replaceAll(" \\(1/1\\).*", ""), ns,
                                    Math::max);
                        }
                    }
                }
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Stops polling and prints each task thread's CPU time per row of {@code rows}. */
    void stopAndPrint(String label, long rows) throws InterruptedException {
        stop = true;
        poller.join();
        synchronized (cpu) {
            cpu.forEach((name, ns) -> System.out.printf(Locale.ROOT, "    %s cpu %.0f ns/row  %s%n", label,
                    (double) ns / rows, name));
        }
    }
}
