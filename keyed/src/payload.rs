//! Stored rows (keep-last / normalize payloads) as arrow-row bytes.
//!
//! One `RowConverter` per operator, one reused `Rows` block per batch; stored
//! payloads are `Arc<[u8]>` copies of a row's bytes, and every emitted row of
//! a batch — from the input or from state — is decoded in one
//! `convert_rows` call at the end of the batch.

use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_row::{RowConverter, RowParser, Rows, SortField};
use arrow_schema::SchemaRef;

use crate::error::{Error, Result};
use crate::row_kind::RowKind;

/// Where an emitted row comes from.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Src {
    /// Row `i` of the current input batch.
    Input(u32),
    /// Entry `i` of the batch's moved-out stored payloads.
    Stored(u32),
}

pub(crate) struct PayloadCodec {
    schema: SchemaRef,
    converter: RowConverter,
    parser: RowParser,
    rows: Rows,
    /// Payloads moved out of state this batch (the `-U` / `-D` rows).
    pub(crate) moved: Vec<Arc<[u8]>>,
    pub(crate) srcs: Vec<Src>,
    pub(crate) kinds: Vec<RowKind>,
}

impl PayloadCodec {
    pub(crate) fn new(schema: SchemaRef) -> Result<Self> {
        let fields = schema.fields().iter().map(|f| SortField::new(f.data_type().clone())).collect();
        let converter = RowConverter::new(fields)?;
        let parser = converter.parser();
        let rows = converter.empty_rows(0, 0);
        Ok(PayloadCodec { schema, converter, parser, rows, moved: Vec::new(), srcs: Vec::new(), kinds: Vec::new() })
    }

    /// Encodes every row of `batch` into the reused block.
    pub(crate) fn encode(&mut self, batch: &RecordBatch) -> Result<()> {
        self.rows.clear();
        self.converter.append(&mut self.rows, batch.columns())?;
        self.moved.clear();
        self.srcs.clear();
        self.kinds.clear();
        Ok(())
    }

    #[inline]
    pub(crate) fn row(&self, i: usize) -> &[u8] {
        self.rows.row(i).data()
    }

    #[inline]
    pub(crate) fn emit_input(&mut self, i: usize, kind: RowKind) {
        self.srcs.push(Src::Input(i as u32));
        self.kinds.push(kind);
    }

    #[inline]
    pub(crate) fn emit_stored(&mut self, payload: Arc<[u8]>, kind: RowKind) {
        self.srcs.push(Src::Stored(self.moved.len() as u32));
        self.moved.push(payload);
        self.kinds.push(kind);
    }

    /// Decodes the emitted rows (one `convert_rows` call) into a batch.
    pub(crate) fn finish(&mut self) -> Result<(RecordBatch, Vec<RowKind>)> {
        let n = self.srcs.len();
        let rows = &self.rows;
        let parser = &self.parser;
        let moved = &self.moved;
        let cols: Vec<ArrayRef> = self.converter.convert_rows(self.srcs.iter().map(|s| match *s {
            Src::Input(i) => rows.row(i as usize),
            Src::Stored(j) => parser.parse(&moved[j as usize]),
        }))?;
        let batch = RecordBatch::try_new_with_options(
            self.schema.clone(),
            cols,
            &RecordBatchOptions::new().with_row_count(Some(n)),
        )?;
        self.moved.clear();
        self.srcs.clear();
        Ok((batch, std::mem::take(&mut self.kinds)))
    }

    /// Decodes `rows` (bytes of rows this codec encoded, from a batch or
    /// from state) into the columns of the schema, in one `convert_rows` call.
    ///
    /// Rows restored from a damaged snapshot can pass [`Self::validate`] and
    /// still fail to decode next to others (arrow-row panics rather than
    /// errors on foreign bytes), so the decode runs under `catch_unwind` and
    /// a panic becomes an error instead of crossing into the caller.
    pub(crate) fn decode<'b>(&self, rows: impl IntoIterator<Item = &'b [u8]>) -> Result<Vec<ArrayRef>> {
        let parser = &self.parser;
        let decoded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.converter.convert_rows(rows.into_iter().map(|b| parser.parse(b)))
        }));
        match decoded {
            Ok(r) => Ok(r?),
            Err(_) => Err(Error::InvalidArgument(
                "a stored row does not decode with this schema (state restored from a damaged snapshot?)".into(),
            )),
        }
    }

    /// Checks that restored bytes decode as one row of this schema.
    ///
    /// The snapshot checksum already rejects accidental corruption; this
    /// catches a well-formed snapshot of another row layout. arrow-row
    /// panics (rather than erroring) on foreign bytes, so the decode runs
    /// under `catch_unwind` and a panic becomes [`Error::CorruptSnapshot`].
    pub(crate) fn validate(&self, bytes: &[u8], offset: usize) -> Result<()> {
        let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.converter.convert_rows([self.parser.parse(bytes)]).is_ok()
        }));
        match ok {
            Ok(true) => Ok(()),
            _ => Err(Error::CorruptSnapshot { offset, reason: "stored row does not decode with this schema".into() }),
        }
    }
}
