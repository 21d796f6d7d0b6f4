//! Flink's `RowKind` (`org.apache.flink.types.RowKind`), the header byte of
//! every `BinaryRowData`.

use std::fmt;

/// The change a row describes, with Flink's byte values
/// (`flink-core/.../types/RowKind.java`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum RowKind {
    /// `+I`, byte 0.
    #[default]
    Insert = 0,
    /// `-U`, byte 1.
    UpdateBefore = 1,
    /// `+U`, byte 2.
    UpdateAfter = 2,
    /// `-D`, byte 3.
    Delete = 3,
}

impl RowKind {
    /// All kinds in byte order.
    pub const ALL: [RowKind; 4] = [RowKind::Insert, RowKind::UpdateBefore, RowKind::UpdateAfter, RowKind::Delete];

    /// The kind for a header byte, `None` for any other byte (Flink's
    /// `fromByteValue` throws there).
    #[inline]
    pub const fn from_byte(b: u8) -> Option<RowKind> {
        match b {
            0 => Some(RowKind::Insert),
            1 => Some(RowKind::UpdateBefore),
            2 => Some(RowKind::UpdateAfter),
            3 => Some(RowKind::Delete),
            _ => None,
        }
    }

    /// The header byte.
    #[inline]
    pub const fn to_byte(self) -> u8 {
        self as u8
    }

    /// Flink's short string: `+I`, `-U`, `+U`, `-D`.
    pub const fn short_string(self) -> &'static str {
        match self {
            RowKind::Insert => "+I",
            RowKind::UpdateBefore => "-U",
            RowKind::UpdateAfter => "+U",
            RowKind::Delete => "-D",
        }
    }

    /// `+I` or `+U` (`RowDataUtil.isAccumulateMsg`).
    pub const fn is_accumulate(self) -> bool {
        matches!(self, RowKind::Insert | RowKind::UpdateAfter)
    }

    /// `-U` or `-D` (`RowDataUtil.isRetractMsg`).
    pub const fn is_retract(self) -> bool {
        !self.is_accumulate()
    }
}

impl fmt::Display for RowKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.short_string())
    }
}
