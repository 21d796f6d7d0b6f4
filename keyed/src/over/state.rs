//! The per-key state of an [`OverAggregate`](super::OverAggregate) besides
//! its accumulators: the bounded frame's rows, Flink's per-key timer
//! values, and the operator-wide buffer of rows waiting for the watermark.

use std::collections::VecDeque;

/// One row of a frame buffer: its order value and where its arrow-row
/// bytes are in the buffer.
#[derive(Clone, Copy, Debug)]
pub(super) struct FrameRow {
    pub(super) ts: i64,
    start: usize,
    len: u32,
}

/// The rows of a bounded frame (ROWS n PRECEDING / RANGE x PRECEDING), oldest
/// first, as one growable byte buffer with a consumed head. A popped row's
/// bytes stay readable until the next [`push`](Frame::push); the buffer is
/// compacted (its live tail moved to the front) when more than half of it is
/// consumed, so a key's frame reuses one allocation for its whole life.
#[derive(Default, Debug)]
pub(super) struct Frame {
    bytes: Vec<u8>,
    head: usize,
    rows: VecDeque<FrameRow>,
}

impl Frame {
    pub(super) fn len(&self) -> usize {
        self.rows.len()
    }

    pub(super) fn front(&self) -> Option<FrameRow> {
        self.rows.front().copied()
    }

    /// Removes the oldest row; its bytes ([`bytes_of`](Self::bytes_of)) stay
    /// valid until the next push.
    pub(super) fn pop_front(&mut self) -> Option<FrameRow> {
        let r = self.rows.pop_front()?;
        self.head = r.start + r.len as usize;
        Some(r)
    }

    pub(super) fn bytes_of(&self, r: FrameRow) -> &[u8] {
        self.bytes.get(r.start..r.start + r.len as usize).unwrap_or(&[])
    }

    /// Appends a row (its bytes are copied; the buffer's storage is reused).
    pub(super) fn push(&mut self, ts: i64, row: &[u8]) {
        if self.rows.is_empty() {
            self.bytes.clear();
            self.head = 0;
        } else if self.head > 0 && self.head * 2 > self.bytes.len() {
            self.bytes.drain(..self.head);
            for r in &mut self.rows {
                r.start -= self.head;
            }
            self.head = 0;
        }
        self.rows.push_back(FrameRow { ts, start: self.bytes.len(), len: row.len() as u32 });
        self.bytes.extend_from_slice(row);
    }

    /// Empties the frame, keeping its storage.
    pub(super) fn clear(&mut self) {
        self.rows.clear();
        self.bytes.clear();
        self.head = 0;
    }

    /// The rows, oldest first, with their bytes.
    pub(super) fn iter(&self) -> impl Iterator<Item = (i64, &[u8])> + '_ {
        self.rows.iter().map(move |r| (r.ts, self.bytes_of(*r)))
    }

    /// Bytes the frame's rows hold.
    pub(super) fn row_bytes(&self) -> usize {
        self.rows.iter().map(|r| r.len as usize).sum()
    }
}

/// What Flink keeps per key besides the accumulators and the rows.
/// An optional event time whose bytes are always initialised. A `None` of
/// `Option<i64>` leaves its payload undefined, and optimised code that
/// compares the payload before testing the tag (a select the compiler turns
/// back into a branch) makes valgrind report a jump on uninitialised memory
/// in the C suite; a flag beside a defined value gives it nothing to report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct OptTs {
    set: bool,
    at: i64,
}

impl OptTs {
    /// No time.
    pub(super) const NONE: OptTs = OptTs { set: false, at: 0 };

    /// The time `at`.
    pub(super) fn some(at: i64) -> Self {
        OptTs { set: true, at }
    }

    /// As an `Option`.
    pub(super) fn get(self) -> Option<i64> {
        if self.set {
            Some(self.at)
        } else {
            None
        }
    }
}

impl From<Option<i64>> for OptTs {
    fn from(v: Option<i64>) -> Self {
        v.map_or(OptTs::NONE, OptTs::some)
    }
}

#[derive(Default, Debug)]
pub(super) struct KeyState {
    /// Bumped when the slot is freed, so a stale cleanup timer of an earlier
    /// key in this slot is recognised.
    pub(super) generation: u32,
    /// `lastTriggeringTsState` of the bounded rowtime functions: the last
    /// event-time timer that fired for the key (0 when unset, as Flink reads
    /// a missing value).
    pub(super) last_trigger: i64,
    /// The pending event-time timer of `AbstractRowTimeUnboundedPrecedingOver`.
    pub(super) timer: OptTs,
    /// `cleanupTsState` of `RowTimeRangeBoundedPrecedingFunction`.
    pub(super) cleanup_ts: OptTs,
    /// Its registered cleanup timers not yet fired, ascending (Flink never
    /// deletes them; an outdated one still moves `last_trigger` when it fires).
    pub(super) cleanup_timers: VecDeque<i64>,
    /// Rows of this key in the operator's watermark buffer.
    pub(super) pending: u32,
    /// The bounded frame.
    pub(super) frame: Frame,
}

impl KeyState {
    /// Resets the state of a freed slot, keeping its buffers' storage.
    pub(super) fn reset(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        self.last_trigger = 0;
        self.timer = OptTs::NONE;
        self.cleanup_ts = OptTs::NONE;
        self.cleanup_timers.clear();
        self.pending = 0;
        self.frame.clear();
    }
}

/// A row waiting for the watermark (rowtime): its key's slot, order value
/// and arrow-row bytes in [`Pending::bytes`].
#[derive(Clone, Copy, Debug)]
pub(super) struct PendingRow {
    pub(super) slot: u32,
    pub(super) ts: i64,
    start: usize,
    len: u32,
}

/// The rows of every key that wait for the watermark, in arrival order
/// (Flink's per-key `inputState` map, kept as one buffer: a watermark scans
/// it once instead of visiting every key).
#[derive(Default, Debug)]
pub(super) struct Pending {
    pub(super) rows: Vec<PendingRow>,
    bytes: Vec<u8>,
    /// The buffers of the next compaction, swapped in (storage reused).
    spare_rows: Vec<PendingRow>,
    spare_bytes: Vec<u8>,
}

impl Pending {
    pub(super) fn push(&mut self, slot: u32, ts: i64, row: &[u8]) {
        self.rows.push(PendingRow { slot, ts, start: self.bytes.len(), len: row.len() as u32 });
        self.bytes.extend_from_slice(row);
    }

    pub(super) fn bytes_of(&self, r: &PendingRow) -> &[u8] {
        self.bytes.get(r.start..r.start + r.len as usize).unwrap_or(&[])
    }

    /// Keeps only the rows for which `keep` holds (in order).
    pub(super) fn retain(&mut self, mut keep: impl FnMut(&PendingRow) -> bool) {
        self.spare_rows.clear();
        self.spare_bytes.clear();
        for r in &self.rows {
            if keep(r) {
                let b = self.bytes.get(r.start..r.start + r.len as usize).unwrap_or(&[]);
                self.spare_rows.push(PendingRow { start: self.spare_bytes.len(), ..*r });
                self.spare_bytes.extend_from_slice(b);
            }
        }
        std::mem::swap(&mut self.rows, &mut self.spare_rows);
        std::mem::swap(&mut self.bytes, &mut self.spare_bytes);
    }
}
