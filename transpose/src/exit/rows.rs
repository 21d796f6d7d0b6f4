//! The exit transpose's output: rows back to back in one buffer, with
//! their offsets.

/// Rows written by the exit transpose: row `i` is
/// `data[offsets[i] .. offsets[i + 1]]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rows {
    /// All row bytes, back to back.
    pub data: Vec<u8>,
    /// `num_rows + 1` offsets into `data`.
    pub offsets: Vec<i64>,
}

impl Rows {
    /// Number of rows.
    pub fn num_rows(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// The bytes of row `i` (empty when `i` is out of range).
    pub fn row(&self, i: usize) -> &[u8] {
        match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(&s), Some(&e)) => self.data.get(s as usize..e as usize).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// Iterates over the rows.
    pub fn iter(&self) -> impl Iterator<Item = &[u8]> + '_ {
        (0..self.num_rows()).map(move |i| self.row(i))
    }

    /// Clears both buffers, keeping their capacity.
    pub fn clear(&mut self) {
        self.data.clear();
        self.offsets.clear();
    }
}
