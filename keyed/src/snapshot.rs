//! The versioned snapshot format shared by the keyed operators.
//!
//! ```text
//! magic "SLKS" | version u16 | operator tag u8 | max parallelism u32 | config fingerprint u64
//! | section count u32
//! | per section (ascending key group): key group u32 | entry count u32 | body length u64 | body
//! | checksum u64 (FNV-1a 64 of every preceding byte)
//! ```
//! All integers little-endian. A body holds `entry count` entries of
//! `key length u32 | key bytes | operator value`. Sections are Flink key
//! groups of the state key (its `BinaryRowData` bytes), so a restore at
//! another parallelism reads only the sections of its key-group range and
//! skips the rest by length.
//!
//! Every read is bounds-checked: a truncated or corrupt snapshot is an
//! [`Error::CorruptSnapshot`] naming the restoring operator, the key group
//! and the byte offset, never a panic. The checksum covers every byte, so a
//! flipped bit or a cut anywhere fails before any entry is read; the version
//! is read first, so a snapshot of another format version says so. The
//! operators stage restored entries and add them to their state only once the
//! whole snapshot has read cleanly: a failed restore leaves the state as it was.

use crate::error::{Error, Result};
use crate::flink_hash::{key_group_of_row, KeyGroupRange};

const MAGIC: &[u8; 4] = b"SLKS";
/// The format version written by this crate.
pub const SNAPSHOT_VERSION: u16 = 1;

/// Which operator wrote a snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum OpTag {
    GroupAgg = 1,
    Normalize = 2,
    Dedup = 3,
    TopN = 4,
    /// The OVER aggregate (`OverAggregate`).
    Over = 5,
    /// The window TVF aggregate (`WindowAggregate`).
    Window = 6,
    /// The updating join (`StreamingJoin`); 8 leaves room for other operators' tags.
    Join = 8,
}

impl OpTag {
    /// The operator's name in error messages (Flink's name for the node it replaces).
    pub(crate) fn name(self) -> &'static str {
        match self {
            OpTag::GroupAgg => "GroupAggregate",
            OpTag::Normalize => "ChangelogNormalize",
            OpTag::Dedup => "Deduplicate",
            OpTag::TopN => "Rank (Top-N)",
            OpTag::Over => "OverAggregate",
            OpTag::Window => "WindowAggregate",
            OpTag::Join => "StreamingJoin",
        }
    }
}

pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Little-endian byte writer.
#[derive(Default)]
pub(crate) struct Writer {
    pub(crate) buf: Vec<u8>,
}

impl Writer {
    pub(crate) fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }
    pub(crate) fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub(crate) fn u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub(crate) fn i64(&mut self, v: i64) {
        self.u64(v as u64);
    }
    pub(crate) fn f64(&mut self, v: f64) {
        self.u64(v.to_bits());
    }
    pub(crate) fn bytes(&mut self, b: &[u8]) {
        self.u32(b.len() as u32);
        self.buf.extend_from_slice(b);
    }
}

/// Bounds-checked little-endian reader over a snapshot.
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(buf: &'a [u8], pos: usize) -> Self {
        Reader { buf, pos }
    }

    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    pub(crate) fn corrupt(&self, reason: impl Into<String>) -> Error {
        Error::CorruptSnapshot { offset: self.pos, reason: reason.into() }
    }

    pub(crate) fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.buf.len()).ok_or_else(|| {
            self.corrupt(format!("truncated: {what} needs {n} bytes, {} left", self.buf.len() - self.pos))
        })?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N]> {
        let s = self.take(N, what)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    pub(crate) fn u8(&mut self, what: &str) -> Result<u8> {
        Ok(self.array::<1>(what)?[0])
    }
    pub(crate) fn u16(&mut self, what: &str) -> Result<u16> {
        Ok(u16::from_le_bytes(self.array(what)?))
    }
    pub(crate) fn u32(&mut self, what: &str) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }
    pub(crate) fn u64(&mut self, what: &str) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }
    pub(crate) fn i64(&mut self, what: &str) -> Result<i64> {
        Ok(self.u64(what)? as i64)
    }
    pub(crate) fn f64(&mut self, what: &str) -> Result<f64> {
        Ok(f64::from_bits(self.u64(what)?))
    }
    pub(crate) fn bytes(&mut self, what: &str) -> Result<&'a [u8]> {
        let n = self.u32(what)? as usize;
        self.take(n, what)
    }
    /// A count that must be plausible for the bytes left (each item ≥ `min_item` bytes).
    pub(crate) fn count(&mut self, what: &str, min_item: usize) -> Result<usize> {
        let n = self.u32(what)? as usize;
        if n.saturating_mul(min_item.max(1)) > self.buf.len() - self.pos {
            return Err(self.corrupt(format!("{what} of {n} does not fit the remaining bytes")));
        }
        Ok(n)
    }
}

/// The entries of `range` with their key groups, in key group order, then
/// key bytes (so a snapshot is deterministic).
fn select_sorted<'v, V: 'v>(
    max_parallelism: i32,
    range: KeyGroupRange,
    entries: impl Iterator<Item = (&'v [u8], &'v V)>,
) -> Vec<(i32, &'v [u8], &'v V)> {
    let mut sel: Vec<(i32, &[u8], &V)> = entries
        .map(|(k, v)| (key_group_of_row(k, max_parallelism), k, v))
        .filter(|(kg, _, _)| range.contains(*kg))
        .collect();
    sel.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)));
    sel
}

/// One section: the entries of one key group (`group` is non-empty).
fn write_section<V>(w: &mut Writer, group: &[(i32, &[u8], &V)], write_value: &mut impl FnMut(&V, &mut Writer)) {
    w.u32(group[0].0 as u32);
    w.u32(group.len() as u32);
    let len_at = w.buf.len();
    w.u64(0);
    let body_start = w.buf.len();
    for (_, k, v) in group {
        w.bytes(k);
        write_value(v, w);
    }
    let body_len = (w.buf.len() - body_start) as u64;
    w.buf[len_at..len_at + 8].copy_from_slice(&body_len.to_le_bytes());
}

fn finish(mut w: Writer) -> Vec<u8> {
    let sum = fnv1a(&w.buf);
    w.u64(sum);
    w.buf
}

/// What identifies one operator's snapshots: its tag, its max parallelism
/// (the key groups) and its configuration fingerprint. Every keyed operator
/// keeps one and writes and reads its snapshots through it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SnapshotFormat {
    pub(crate) tag: OpTag,
    pub(crate) max_parallelism: i32,
    pub(crate) fingerprint: u64,
}

impl SnapshotFormat {
    /// Writes the snapshot of `entries` (key bytes, value) in `range`.
    pub(crate) fn write<'v, V: 'v>(
        &self,
        range: KeyGroupRange,
        entries: impl Iterator<Item = (&'v [u8], &'v V)>,
        mut write_value: impl FnMut(&V, &mut Writer),
    ) -> Vec<u8> {
        let sel = select_sorted(self.max_parallelism, range, entries);
        let mut w = Writer::default();
        let sections = sel.chunk_by(|a, b| a.0 == b.0).count();
        self.write_header(&mut w, sections);
        for group in sel.chunk_by(|a, b| a.0 == b.0) {
            write_section(&mut w, group, &mut write_value);
        }
        finish(w)
    }

    /// Writes one complete snapshot per non-empty key group of `range`, in
    /// one pass over `entries`: `(key group, snapshot)` in ascending key
    /// group order. Each snapshot has one section and is restorable on its
    /// own (this is what Flink's raw keyed state wants: one stream per key
    /// group).
    pub(crate) fn write_by_key_group<'v, V: 'v>(
        &self,
        range: KeyGroupRange,
        entries: impl Iterator<Item = (&'v [u8], &'v V)>,
        mut write_value: impl FnMut(&V, &mut Writer),
    ) -> Vec<(i32, Vec<u8>)> {
        let sel = select_sorted(self.max_parallelism, range, entries);
        sel.chunk_by(|a, b| a.0 == b.0)
            .map(|group| {
                let mut w = Writer::default();
                self.write_header(&mut w, 1);
                write_section(&mut w, group, &mut write_value);
                (group[0].0, finish(w))
            })
            .collect()
    }

    fn write_header(&self, w: &mut Writer, sections: usize) {
        w.buf.extend_from_slice(MAGIC);
        w.buf.extend_from_slice(&SNAPSHOT_VERSION.to_le_bytes());
        w.u8(self.tag as u8);
        w.u32(self.max_parallelism as u32);
        w.u64(self.fingerprint);
        w.u32(sections as u32);
    }

    /// [`read_snapshot`] of a snapshot this operator's configuration wrote.
    pub(crate) fn read(
        &self,
        bytes: &[u8],
        range: KeyGroupRange,
        on_entry: impl FnMut(&[u8], &mut Reader<'_>) -> Result<()>,
    ) -> Result<()> {
        read_snapshot(bytes, self.tag, self.max_parallelism, self.fingerprint, range, on_entry)
    }
}

/// Bytes before the first section: magic, version, tag, max parallelism,
/// fingerprint, section count.
const HEADER: usize = 4 + 2 + 1 + 4 + 8 + 4;

/// Reads a snapshot, calling `on_entry(key, reader)` for every entry whose
/// key group is in `range`; `on_entry` must consume exactly the value.
///
/// A [`Error::CorruptSnapshot`] from here (or from `on_entry`) names the
/// restoring operator and the key group: the one of the section being read,
/// or, for a damaged header or checksum, the key group(s) the snapshot's
/// first section claims. The format version is checked before the checksum,
/// so a snapshot of another format version is reported as such.
fn read_snapshot(
    bytes: &[u8],
    tag: OpTag,
    max_parallelism: i32,
    fingerprint: u64,
    range: KeyGroupRange,
    on_entry: impl FnMut(&[u8], &mut Reader<'_>) -> Result<()>,
) -> Result<()> {
    let mut at: Option<u32> = None;
    read_sections(bytes, tag, max_parallelism, fingerprint, range, &mut at, on_entry).map_err(|e| match e {
        Error::CorruptSnapshot { offset, reason } => {
            let place = match at {
                Some(kg) => format!("key group {kg}"),
                None => claimed_key_groups(bytes),
            };
            Error::CorruptSnapshot { offset, reason: format!("{} restore, {place}: {reason}", tag.name()) }
        }
        other => other,
    })
}

/// What the (unverified) header says about the key groups of a snapshot
/// whose header or checksum is damaged.
fn claimed_key_groups(bytes: &[u8]) -> String {
    let word = |at: usize| bytes.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    match (word(HEADER - 4), word(HEADER)) {
        (Some(0), _) => "no key group (an empty snapshot)".into(),
        (Some(1), Some(kg)) => format!("key group {kg} (per the damaged snapshot's header)"),
        (Some(n), Some(kg)) => format!("{n} key groups from {kg} (per the damaged snapshot's header)"),
        _ => "key group unknown (the snapshot ends inside its header)".into(),
    }
}

fn read_sections(
    bytes: &[u8],
    tag: OpTag,
    max_parallelism: i32,
    fingerprint: u64,
    range: KeyGroupRange,
    at: &mut Option<u32>,
    mut on_entry: impl FnMut(&[u8], &mut Reader<'_>) -> Result<()>,
) -> Result<()> {
    if bytes.len() >= 4 && &bytes[..4] != MAGIC {
        return Err(Error::CorruptSnapshot { offset: 0, reason: "bad magic (not a sluice keyed snapshot)".into() });
    }
    if bytes.len() >= 6 {
        let version = Reader::new(bytes, 4).u16("version")?;
        if version != SNAPSHOT_VERSION {
            return Err(Error::CorruptSnapshot {
                offset: 4,
                reason: format!(
                    "snapshot format version {version} (written by another sluice version); this build reads version {SNAPSHOT_VERSION}"
                ),
            });
        }
    }
    if bytes.len() < HEADER + 8 {
        return Err(Error::CorruptSnapshot {
            offset: bytes.len(),
            reason: format!("truncated: {} bytes is shorter than the header", bytes.len()),
        });
    }
    let body_end = bytes.len() - 8;
    let mut sum = [0u8; 8];
    sum.copy_from_slice(&bytes[body_end..]);
    if fnv1a(&bytes[..body_end]) != u64::from_le_bytes(sum) {
        return Err(Error::CorruptSnapshot {
            offset: body_end,
            reason: "checksum mismatch (the snapshot is truncated or damaged)".into(),
        });
    }
    let body = &bytes[..body_end];
    let mut r = Reader::new(body, 6);
    let t = r.u8("operator tag")?;
    if t != tag as u8 {
        let kind =
            [OpTag::GroupAgg, OpTag::Normalize, OpTag::Dedup, OpTag::TopN, OpTag::Over, OpTag::Window, OpTag::Join]
                .into_iter()
                .find(|k| *k as u8 == t)
                .map_or("an unknown operator", OpTag::name);
        return Err(r.corrupt(format!("snapshot of {kind} (operator tag {t}), not of a {}", tag.name())));
    }
    let m = r.u32("max parallelism")?;
    if m != max_parallelism as u32 {
        return Err(r.corrupt(format!("snapshot taken with max parallelism {m}, operator has {max_parallelism}")));
    }
    let f = r.u64("fingerprint")?;
    if f != fingerprint {
        return Err(r.corrupt("snapshot taken by an operator with another schema, key or aggregate list"));
    }
    let sections = r.count("section count", 16)?;
    let mut last_kg: i64 = -1;
    for _ in 0..sections {
        let kg = r.u32("key group")? as i64;
        *at = Some(kg as u32);
        if kg <= last_kg || kg >= max_parallelism as i64 {
            return Err(r.corrupt(format!("key group {kg} out of order or range")));
        }
        last_kg = kg;
        let n = r.count("entry count", 4)?;
        let len = r.u64("section length")?;
        let len = usize::try_from(len).map_err(|_| r.corrupt("section length overflows"))?;
        let start = r.pos();
        let section = r.take(len, "section body")?;
        if !range.contains(kg as i32) {
            continue;
        }
        let mut sr = Reader::new(body, start);
        let end = start + section.len();
        for _ in 0..n {
            let key = sr.bytes("key")?;
            if !key.len().is_multiple_of(8) || key_group_of_row(key, max_parallelism) as i64 != kg {
                return Err(sr.corrupt(format!("key does not belong to key group {kg}")));
            }
            on_entry(key, &mut sr)?;
            if sr.pos() > end {
                return Err(sr.corrupt("entry runs past its section"));
            }
        }
        if sr.pos() != end {
            return Err(sr.corrupt("section length does not match its entries"));
        }
    }
    if r.pos() != body.len() {
        return Err(r.corrupt("trailing bytes after the last section"));
    }
    Ok(())
}
